package gittest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// History fills the work tree repository dir with files and commits edits to
// them, so that `git pack-objects` finds deltas (OFS and REF) and chains.
// files is the number of files, commits the number of commits after the
// first; every tenth commit gets an annotated tag. It is deterministic.
func History(t testing.TB, env []string, dir string, files, commits int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(files), uint64(commits)))
	contents := make([]string, files)
	for i := range contents {
		var b strings.Builder
		for l := 0; l < 20+rng.IntN(60); l++ {
			fmt.Fprintf(&b, "file %d line %d: %x\n", i, l, rng.Uint64())
		}
		contents[i] = b.String()
		WriteFile(t, dir, fileName(i), contents[i])
	}
	Git(t, env, dir, "add", "-A")
	Git(t, Tick(env, 0), dir, "commit", "-q", "-m", "initial")
	for c := 1; c <= commits; c++ {
		for k := 0; k < 1+rng.IntN(4); k++ {
			i := rng.IntN(files)
			lines := strings.SplitAfter(contents[i], "\n")
			at := rng.IntN(len(lines))
			lines[at] = fmt.Sprintf("edit %d of commit %d: %x\n", k, c, rng.Uint64())
			contents[i] = strings.Join(lines, "")
			WriteFile(t, dir, fileName(i), contents[i])
		}
		Git(t, env, dir, "add", "-A")
		Git(t, Tick(env, c), dir, "commit", "-q", "-m", fmt.Sprintf("commit %d", c))
		if c%10 == 0 {
			Git(t, Tick(env, c), dir, "tag", "-a", "-m", fmt.Sprintf("tag %d", c), fmt.Sprintf("v%d", c))
		}
	}
}

func fileName(i int) string {
	return fmt.Sprintf("dir%d/sub%d/file%d.txt", i%7, i%3, i)
}
