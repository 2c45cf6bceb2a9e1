package gittest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// History adds a deterministic history to the repository dir (bare or
// not) on branch main through one `git fast-import`: files files, then
// commits commits that each edit a few lines of a few files — so that `git
// pack-objects` finds OFS and REF deltas and chains — with an annotated tag
// on every tenth commit and a side branch. A work tree, if any, is not
// checked out.
func History(t testing.TB, env []string, dir string, files, commits int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(files), uint64(commits)))
	contents := make([]string, files)
	var s bytes.Buffer
	data := func(b string) { fmt.Fprintf(&s, "data %d\n%s\n", len(b), b) }
	commit := func(i int, branch string, paths []int) {
		fmt.Fprintf(&s, "commit refs/heads/%s\nmark :%d\n", branch, i+1)
		fmt.Fprintf(&s, "author A U Thor <author@example.com> %d +0000\n", 1700000000+60*i)
		fmt.Fprintf(&s, "committer C O Mitter <committer@example.com> %d +0000\n", 1700000000+60*i)
		data(fmt.Sprintf("commit %d\n", i))
		if i > 0 {
			fmt.Fprintf(&s, "from :%d\n", i)
		}
		for _, p := range paths {
			fmt.Fprintf(&s, "M 100644 inline %s\n", fileName(p))
			data(contents[p])
		}
	}
	all := make([]int, files)
	for i := range contents {
		var b strings.Builder
		for l := 0; l < 20+rng.IntN(60); l++ {
			fmt.Fprintf(&b, "file %d line %d: %x\n", i, l, rng.Uint64())
		}
		contents[i] = b.String()
		all[i] = i
	}
	commit(0, "main", all)
	for c := 1; c <= commits; c++ {
		var paths []int
		for k := 0; k < 1+rng.IntN(4); k++ {
			i := rng.IntN(files)
			lines := strings.SplitAfter(contents[i], "\n")
			at := rng.IntN(len(lines))
			lines[at] = fmt.Sprintf("edit %d of commit %d: %x\n", k, c, rng.Uint64())
			contents[i] = strings.Join(lines, "")
			paths = append(paths, i)
		}
		commit(c, "main", paths)
		if c%10 == 0 {
			fmt.Fprintf(&s, "tag v%d\nfrom :%d\ntagger C O Mitter <committer@example.com> %d +0000\n", c, c+1, 1700000000+60*c)
			data(fmt.Sprintf("tag %d\n", c))
		}
	}
	if commits >= 2 {
		fmt.Fprintf(&s, "reset refs/heads/side\nfrom :%d\n", commits/2+1)
	}
	GitIn(t, env, dir, s.Bytes(), "fast-import", "--quiet")
}

func fileName(i int) string {
	return fmt.Sprintf("dir%d/sub%d/file%d.txt", i%7, i%3, i)
}
