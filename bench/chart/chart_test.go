package main

import (
	"os"
	"strings"
	"testing"
)

// TestPictureCurrent: docs/performance.svg is what this command draws from
// docs/performance.tsv, and docs/performance.md, the user's page, stays
// within 500 lines and shows it.
func TestPictureCurrent(t *testing.T) {
	f, err := os.Open("../../docs/performance.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := read(f)
	if err != nil || len(rows) < 5 {
		t.Fatalf("%d rows: %v", len(rows), err)
	}
	svg, err := os.ReadFile("../../docs/performance.svg")
	if err != nil {
		t.Fatal(err)
	}
	if string(svg) != render(rows) {
		t.Error("docs/performance.svg is not what go run ./bench/chart <docs/performance.tsv draws: run it again")
	}
	page, err := os.ReadFile("../../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), "\n"); n > 500 || !strings.Contains(string(page), "(performance.svg)") {
		t.Errorf("docs/performance.md: %d lines, the picture shown: %v", n, strings.Contains(string(page), "(performance.svg)"))
	}
}

// TestReadRefuses: a row the table cannot hold is refused with its line.
func TestReadRefuses(t *testing.T) {
	for _, in := range []string{"a\t1\n", "a\tx\t1\n", "a\t0.9\t0.5\n", "a\t0\t1\n"} {
		if _, err := read(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v", in, err)
		}
	}
}
