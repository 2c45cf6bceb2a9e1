package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A package of tests run by go test -json itself: one passes whole, one
// passes with a subtest skipped, one is skipped, one fails.
const sample = `package sample

import "testing"

func TestWhole(t *testing.T) {}

func TestParts(t *testing.T) {
	t.Run("here", func(t *testing.T) {})
	t.Run("there", func(t *testing.T) { t.Skip("no mkfs.xfs") })
}

func TestAway(t *testing.T) { t.Skip("no sshd") }

func TestBroken(t *testing.T) { t.Error("it broke") }
`

func TestReportSaysSkippedSubtests(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":         "module sample\n\ngo 1.22\n",
		"sample_test.go": sample,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-json", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	events, _ := cmd.Output() // the failing test makes go test exit 1
	if len(events) == 0 {
		t.Fatal("go test -json said nothing")
	}

	var out bytes.Buffer
	r := newReport(&out)
	sc := bufio.NewScanner(bytes.NewReader(events))
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		r.see(e)
	}
	r.summary()
	got := out.String()
	for _, want := range []string{
		"  PASS TestWhole (",
		"  PASS TestParts (",
		"; 1 of its subtests skipped)",
		"  SKIP TestAway: ",
		"  FAIL TestBroken (",
		"2 tests passed, 1 failed, 1 skipped; 1 subtests skipped\n",
		"  skipped: TestAway: sample_test.go:12: no sshd\n",
		"  skipped subtest: TestParts/there: sample_test.go:9: no mkfs.xfs\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TestWhole (0.0s;") || strings.Count(got, "subtests skipped)") != 1 {
		t.Errorf("a skip told of the wrong test:\n%s", got)
	}
}
