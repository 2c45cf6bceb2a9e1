package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSelectCounts checks the objects counted along a history with a
// merge, a rename, a deletion and a submodule against git rev-list.
func TestSelectCounts(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "r.git")
	if err := run("", nil, "git", "init", "-q", "--bare", "-b", "main", repo); err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	commit := func(mark int, ref string, from []int, body string) {
		fmt.Fprintf(&in, "commit %s\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata 2\nc\n", ref, mark, 1700000000+mark)
		for i, f := range from {
			if i == 0 {
				fmt.Fprintf(&in, "from :%d\n", f)
			} else {
				fmt.Fprintf(&in, "merge :%d\n", f)
			}
		}
		in.WriteString(body)
	}
	file := func(path, data string) string {
		return fmt.Sprintf("M 100644 inline %s\ndata %d\n%s\n", path, len(data), data)
	}
	commit(1, "refs/heads/main", nil, file("a/x", "one")+file("a/b/y", "two")+file("z", "three"))
	commit(2, "refs/heads/main", []int{1}, file("a/b/y", "two'")+"M 160000 0123456789012345678901234567890123456789 sub\n")
	commit(3, "refs/heads/side", []int{1}, file("a/x", "one'")+"D z\n")
	commit(4, "refs/heads/main", []int{2, 3}, file("a/x", "one'")+"D z\n")
	commit(5, "refs/heads/main", []int{4}, "R a/b/y c/y\n"+file("a/x", "one"))
	if err := run(repo, strings.NewReader(in.String()), "git", "fast-import", "--quiet"); err != nil {
		t.Fatal(err)
	}
	var counts []int
	for n := 1; n <= 25; n++ {
		counts = append(counts, n)
	}
	sels, err := selectCounts(repo, []string{"main"}, counts)
	if err != nil {
		t.Fatal(err)
	}
	if len(sels) < 10 {
		t.Fatalf("%d selections", len(sels))
	}
	for _, s := range sels {
		cmd := exec.Command("git", append([]string{"rev-list", "--objects"}, s.revs...)...)
		cmd.Dir = repo
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(string(out), "\n"); got != s.objects {
			t.Errorf("%s: %d commits, %d objects counted, rev-list says %d", s.label, len(s.revs), s.objects, got)
		}
		if len(s.refs) == 0 || !strings.HasPrefix(s.refs[0], "refs/heads/main "+s.revs[len(s.revs)-1]) {
			t.Errorf("%s: refs %v", s.label, s.refs)
		}
	}
}
