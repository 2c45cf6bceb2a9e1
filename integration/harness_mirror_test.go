//go:build !windows

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// The mirror runner as the tests drive it: --update-mirrors (runner) and
// --verify (verifier), the line it logs of a repository and the series
// of its metrics, and the damage done to a packed blob.

// runner runs git-remote-durable --update-mirrors with args.
func runner(t *testing.T, env []string, args ...string) *gittest.Cmd {
	t.Helper()
	return gittest.Exec(t, env, "", nil, filepath.Join(binDir, "git-remote-durable"), append([]string{"--update-mirrors"}, args...)...)
}

// verifier runs git-remote-durable --verify with args.
func verifier(t *testing.T, env []string, args ...string) *gittest.Cmd {
	t.Helper()
	return gittest.Exec(t, env, "", nil, filepath.Join(binDir, "git-remote-durable"), append([]string{"--verify"}, args...)...)
}

// runnerLine returns the runner's log line of the repository dir.
func runnerLine(t *testing.T, c *gittest.Cmd, dir string) string {
	t.Helper()
	for _, l := range strings.Split(string(c.Stdout), "\n") {
		if f := strings.Fields(l); len(f) >= 3 && f[1] == dir {
			return l
		}
	}
	t.Fatalf("no line for %s:\n%s", dir, c.Stdout)
	return ""
}

// lastSuccess is the series of each mirror's last successful update.
const lastSuccess = "git_durable_update_last_success_timestamp_seconds"

// series is the start of the sample of the metric name for the mirror dir
// in the metrics of the run labelled run, up to its value.
func series(name, run, dir string) string {
	return name + `{runner="` + run + `",repository="` + dir + `"} `
}

// packedBlob returns a blob of the mirror dir's only pack, where its entry
// starts, and the pack's path.
func packedBlob(t *testing.T, env []string, dir string) (object.ID, int64, string) {
	t.Helper()
	return packedBlobIf(t, env, dir, func(object.ID) bool { return true })
}

// packedBlobIf is packedBlob for the first blob for which keep is true.
func packedBlobIf(t *testing.T, env []string, dir string, keep func(object.ID) bool) (object.ID, int64, string) {
	t.Helper()
	idxs, _ := filepath.Glob(filepath.Join(dir, "objects/pack/*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("packs of %s: %v", dir, idxs)
	}
	idx, err := pack.ParseIndex(readFile(t, idxs[0]), object.SHA1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range idx.Count() {
		if strings.TrimSpace(gittest.Git(t, env, dir, "cat-file", "-t", idx.ID(i).String())) == "blob" && keep(idx.ID(i)) {
			off, _ := idx.Offset(i)
			return idx.ID(i), off, strings.TrimSuffix(idxs[0], ".idx") + ".pack"
		}
	}
	t.Fatal("no blob in the pack")
	return object.ID{}, 0, ""
}

// flipByte changes the byte at off of the file path.
func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	b := readFile(t, path)
	b[off] ^= 0x40
	if err := os.WriteFile(path, b, 0o444); err != nil {
		t.Fatal(err)
	}
}

// durableMirror makes an upstream in a new temporary directory base and a
// mirror of it through the helper in the tree the runner is given
// (tree/m.git, cloned with git's options opts).
func durableMirror(t *testing.T, env []string, opts ...string) (base, up, tree, m string) {
	t.Helper()
	base = t.TempDir()
	up = newUpstream(t, env, base, "up.git")
	tree = filepath.Join(base, "tree")
	m = filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, append(append([]string{"clone", "-q", "--mirror"}, opts...), "durable::file://"+up, m)...)
	return base, up, tree, m
}

// mentions reports whether the runner's line l names id: whole, or as its
// first 12 digits, as a line cut to 300 characters shortens ids.
func mentions(l, id string) bool {
	return strings.Contains(l, id) || len(id) > 12 && strings.Contains(l, id[:12]+"…")
}

// verdictOf returns the statistics file's verify record of the repository
// dir (the runner's detail of a --verify), as text.
func verdictOf(t *testing.T, stats, dir string) string {
	t.Helper()
	for _, l := range strings.Split(string(readFile(t, stats)), "\n") {
		if strings.HasPrefix(l, `{"kind":"verify"`) && strings.Contains(l, `"repository":"`+dir+`"`) {
			return l
		}
	}
	t.Fatalf("no verify record of %s in %s", dir, stats)
	return ""
}

// fileSize is the size of the file at path.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// cutShort cuts the pack at path, of the index idx, to the size size
// gives for its own, and returns the ids idx lists: git refuses a pack cut
// short whole, it reads none of it.
func cutShort(t *testing.T, idx *pack.Index, path string, size func(int64) int64) []string {
	t.Helper()
	os.Chmod(path, 0o644)
	if err := os.Truncate(path, size(fileSize(t, path))); err != nil {
		t.Fatal(err)
	}
	var lost []string
	for i := range idx.Count() {
		lost = append(lost, idx.ID(i).String())
	}
	return lost
}
