package crashtest

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// straceOf renders n objects written the way git-unpack-durable does, as
// strace -f -y prints them, by two threads whose calls interleave; steps
// choose what each object gets between write and rename, and flush which
// final name is fsynced at the end ("" for none).
func straceOf(n int, writeout bool, flush int) (string, map[string][]byte) {
	var b strings.Builder
	files := map[string][]byte{}
	final := make([]string, n)
	for i := 0; i < n; i++ {
		p, raw := looseObject(i)
		final[i], files[p] = p, raw
		dir := filepath.Dir(p)
		tmp := filepath.Join(dir, fmt.Sprintf("tmp_obj_%d", i))
		pid := 100 + i%2
		fmt.Fprintf(&b, "%d mkdirat(AT_FDCWD</r>, %q, 0777) = 0\n", pid, dir)
		fmt.Fprintf(&b, "%d openat(AT_FDCWD</r>, %q, O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0444) = 7<%s>\n", pid, tmp, tmp)
		fmt.Fprintf(&b, "%d write(7<%s>, \"x\\1\"..., %d <unfinished ...>\n", pid, tmp, len(raw))
		fmt.Fprintf(&b, "%d write(2<pipe:[5]>, \"progress\", 8) = 8\n", 300)
		fmt.Fprintf(&b, "%d <... write resumed>) = %d\n", pid, len(raw))
		if writeout {
			fmt.Fprintf(&b, "%d sync_file_range(7<%s>, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER) = 0\n", pid, tmp)
		}
		fmt.Fprintf(&b, "%d close(7<%s>) = 0\n", pid, tmp)
		fmt.Fprintf(&b, "%d renameat(AT_FDCWD</r>, %q, AT_FDCWD</r>, %q) = 0\n", pid, tmp, p)
	}
	if flush >= 0 {
		fmt.Fprintf(&b, "100 openat(AT_FDCWD</r>, %q, O_RDONLY|O_CLOEXEC) = 8<%s>\n", final[flush], final[flush])
		fmt.Fprintf(&b, "100 fsync(8<%s>) = 0\n", final[flush])
	}
	return b.String(), files
}

func checkStrace(t *testing.T, text string, files map[string][]byte) (*Report, error) {
	t.Helper()
	calls, err := ParseStrace(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := FromStrace(calls)
	if err != nil {
		return nil, err
	}
	var expect []string
	for p := range files {
		expect = append(expect, p)
	}
	content := func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, fs.ErrNotExist
	}
	return Check(evs, Options{Expect: expect, Content: content})
}

func TestFromStrace(t *testing.T) {
	const n = 30
	tests := []struct {
		name     string
		writeout bool
		flush    int
		want     string // the invariants that must break, as Report.Broken names them
	}{
		{"batch", true, n - 1, ""},
		{"no writeout", false, n - 1, "I-a, I-b"},
		{"no flush", true, -1, "I-a"},
		{"flush of an early object", true, 3, "I-a"},
	}
	for _, tt := range tests {
		text, files := straceOf(n, tt.writeout, tt.flush)
		rep, err := checkStrace(t, text, files)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := rep.Broken()
		if got != tt.want || rep.Objects != n {
			t.Errorf("%s: broke %q, want %q; %v\n%v", tt.name, got, tt.want, rep, rep.Err())
		}
	}
}

// TestFromStraceShortWrite checks that content comes from the writes a
// trace shows: a file whose write was cut short holds a prefix only.
func TestFromStraceShortWrite(t *testing.T) {
	text, files := straceOf(2, true, 1)
	p, raw := looseObject(0)
	text = strings.Replace(text, fmt.Sprintf("resumed>) = %d", len(raw)), fmt.Sprintf("resumed>) = %d", len(raw)-1), 1)
	rep, err := checkStrace(t, text, files)
	if err != nil {
		t.Fatal(err)
	}
	if rep.BadIB == 0 || rep.Violations[0].Path != p {
		t.Errorf("short write passed: %v", rep.Err())
	}
}

func TestFromStraceRefusesAmbiguity(t *testing.T) {
	p, _ := looseObject(0)
	for name, text := range map[string]string{
		"fsync overlapping a rename": fmt.Sprintf("1 renameat(AT_FDCWD</r>, \"/r/t\", AT_FDCWD</r>, %q <unfinished ...>\n2 fsync(8<%s>) = 0\n1 <... renameat resumed>) = 0\n", p, p),
		"pwrite":                     "1 pwrite64(7</r/objects/ab/tmp_obj_1>, \"x\", 1, 5) = 1\n",
		"exchange":                   fmt.Sprintf("1 renameat2(AT_FDCWD</r>, \"/r/t\", AT_FDCWD</r>, %q, RENAME_EXCHANGE) = 0\n", p),
	} {
		calls, err := ParseStrace(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FromStrace(calls); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
