package integration

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	packpkg "github.com/git-durable/git-durable/pack"
)

// The repositories the tests make, and how they compare them with stock git's.

// newUpstream makes a bare repository with a generated history (tags, a
// side branch), accepting pushes over every protocol.
func newUpstream(t *testing.T, env []string, base, name string) string {
	t.Helper()
	return newUpstreamOf(t, env, base, name, "sha1", 30, 40)
}

// newUpstreamOf is newUpstream in the object format (sha1, sha256) with
// a history of files files and commits commits.
func newUpstreamOf(t *testing.T, env []string, base, name, format string, files, commits int) string {
	t.Helper()
	dir := filepath.Join(base, name)
	gittest.Git(t, env, base, "init", "-q", "--bare", "-b", "main", "--object-format="+format, dir)
	gittest.History(t, env, dir, files, commits)
	gittest.Git(t, env, dir, "config", "http.receivepack", "true")
	gittest.Git(t, env, dir, "config", "receive.denyDeleteCurrent", "warn")
	return dir
}

// refs returns "<id> <name>" for every ref of the repository, and what HEAD
// points at.
func refs(t *testing.T, env []string, dir string) string {
	t.Helper()
	out := gittest.Git(t, env, dir, "for-each-ref", "--format=%(objectname) %(refname)")
	head := gittest.Exec(t, env, dir, nil, "git", "symbolic-ref", "-q", "HEAD")
	return out + "HEAD -> " + string(head.Stdout)
}

// sameRepo fails unless ours and theirs have the same refs, HEAD and
// objects; ours must pass fsck --strict and keep packs where git does.
func sameRepo(t *testing.T, env []string, ours, theirs string) {
	t.Helper()
	if a, b := refs(t, env, theirs), refs(t, env, ours); a != b {
		t.Fatalf("refs differ:\ngit clone:\n%s\nours:\n%s", a, b)
	}
	want, got := gittest.Objects(t, env, theirs), gittest.Objects(t, env, ours)
	if want != got {
		t.Fatalf("objects differ: git %d, ours %d lines; %s", strings.Count(want, "\n"), strings.Count(got, "\n"), firstDiff(want, got))
	}
	gittest.Fsck(t, env, ours)
	// A pack where git keeps one (a clone, a fetch of at least its unpack
	// limit). (git's shallow clone over HTTP and protocol v0 explodes a
	// small pack where the helper's clone keeps it.)
	if len(packsOf(t, theirs)) > 0 && len(packsOf(t, ours)) == 0 {
		t.Fatalf("git kept a pack, ours none")
	}
}

// packsOf lists the packs of the repository at dir (bare or not).
func packsOf(t *testing.T, dir string) []string {
	t.Helper()
	var packs []string
	for _, d := range []string{filepath.Join(dir, "objects/pack"), filepath.Join(dir, ".git/objects/pack")} {
		p, _ := filepath.Glob(filepath.Join(d, "*.pack"))
		packs = append(packs, p...)
	}
	return packs
}

// advance adds n commits to the upstream's main (editing files, so that a
// fetch gets deltas against objects the client has: a thin pack) and an
// annotated tag on the last one, through a scratch clone.
func advance(t *testing.T, env []string, dir string, n int, tag string) {
	t.Helper()
	work := t.TempDir()
	gittest.Git(t, env, work, "clone", "-q", "--no-local", dir, work)
	for i := 0; i < n; i++ {
		for _, f := range []string{"dir0/sub0/file0.txt", "dir1/sub1/file1.txt"} {
			p := filepath.Join(work, f)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, fmt.Sprintf("more %s %d\n", tag, i)...)
			if err := os.WriteFile(p, b, 0o666); err != nil {
				t.Fatal(err)
			}
		}
		gittest.Git(t, gittest.Tick(env, 1000+i), work, "commit", "-q", "-a", "-m", fmt.Sprintf("%s %d", tag, i))
	}
	if tag != "" {
		gittest.Git(t, env, work, "tag", "-a", "-m", tag, tag)
	}
	gittest.Git(t, env, work, "push", "-q", "origin", "main", "--tags")
}

// packOf returns `git pack-objects --stdout args…` of the repository dir
// with revs on stdin.
func packOf(t testing.TB, env []string, dir, revs string, args ...string) []byte {
	t.Helper()
	return gittest.GitIn(t, env, dir, []byte(revs), append([]string{"pack-objects", "--stdout", "-q"}, args...)...)
}

// deltas counts the OFS_DELTA and REF_DELTA entries of a pack, to show that a
// test pack has the shape it claims.
func deltas(t testing.TB, pack []byte, f object.Format) (ofs, ref int) {
	t.Helper()
	r := packpkg.NewReader(bytes.NewReader(pack), packpkg.ReaderOptions{Format: f})
	for {
		e, err := r.Next()
		if err == io.EOF {
			return ofs, ref
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case object.OfsDelta:
			ofs++
		case object.RefDelta:
			ref++
		}
	}
}

// packApply applies a delta to its base.
func packApply(base, delta []byte) ([]byte, error) { return packpkg.ApplyDelta(nil, base, delta) }

// bigOnce makes bigRepo, historyRepo's repository, once per test run.
var (
	bigOnce sync.Once
	bigRepo string
)

// historyRepo returns a shared bare repository with a history of more than
// 5,000 objects (made once per test run).
func historyRepo(t *testing.T, env []string) string {
	bigOnce.Do(func() {
		dir, err := os.MkdirTemp("", "git-durable-history-")
		if err != nil {
			t.Fatal(err)
		}
		gittest.Git(t, env, dir, "init", "-q", "--bare", "-b", "main", dir)
		gittest.History(t, env, dir, 300, 700)
		bigRepo = dir
	})
	if bigRepo == "" {
		t.Fatal("no history repository")
	}
	return bigRepo
}

// bigCommit adds a commit of n incompressible files of size bytes to the
// bare repository dir.
func bigCommit(t *testing.T, env []string, dir string, n, size int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	buf := make([]byte, size)
	var tree strings.Builder
	for i := 0; i < n; i++ {
		for j := range buf {
			buf[j] = byte(rng.Uint32())
		}
		blob := gittest.GitIn(t, env, dir, buf, "hash-object", "-w", "--stdin")
		fmt.Fprintf(&tree, "100644 blob %s\t%02d.bin\n", strings.TrimSpace(string(blob)), i)
	}
	big := strings.TrimSpace(string(gittest.GitIn(t, env, dir, []byte(tree.String()), "mktree")))
	root := gittest.Git(t, env, dir, "ls-tree", "main")
	top := gittest.GitIn(t, env, dir, []byte(root+"040000 tree "+big+"\tbig\n"), "mktree")
	commit := gittest.GitIn(t, env, dir, nil, "commit-tree", "-p", "main", "-m", "big", strings.TrimSpace(string(top)))
	gittest.Git(t, env, dir, "update-ref", "refs/heads/main", strings.TrimSpace(string(commit)))
}

// looseCount counts loose objects in repo.
func looseCount(t *testing.T, repo string) int {
	t.Helper()
	n, _ := filepath.Glob(filepath.Join(repo, "objects/??/*"))
	return len(n)
}

// packFiles returns the files of objects/pack in repo, by extension.
func packFiles(t *testing.T, repo string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	names, _ := filepath.Glob(filepath.Join(repo, "objects/pack/*"))
	for _, n := range names {
		ext := strings.TrimPrefix(filepath.Ext(n), ".")
		out[ext] = append(out[ext], n)
	}
	return out
}

// sameShallow fails unless both clones record the same shallow boundary.
func sameShallow(t *testing.T, ours, theirs string) {
	t.Helper()
	a, err1 := os.ReadFile(filepath.Join(theirs, ".git/shallow"))
	b, err2 := os.ReadFile(filepath.Join(ours, ".git/shallow"))
	if err1 != nil || err2 != nil || sortedLines(string(a)) != sortedLines(string(b)) {
		t.Fatalf("shallow files differ (%v, %v):\ngit:\n%s\nours:\n%s", err1, err2, a, b)
	}
}

// shallowOf returns the sorted lines of a repository's shallow file, ""
// when there is none.
func shallowOf(t *testing.T, dir string) string {
	t.Helper()
	for _, p := range []string{filepath.Join(dir, ".git/shallow"), filepath.Join(dir, "shallow")} {
		if b, err := os.ReadFile(p); err == nil {
			return sortedLines(string(b))
		}
	}
	return ""
}
