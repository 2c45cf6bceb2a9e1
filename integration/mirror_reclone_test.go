//go:build linux

package integration

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// TestMirrorVerifyReclone: git-remote-durable --verify --reclone replaces
// a mirror with a fresh clone swapped in, and carries over what the mirror
// had of its own: its configuration, hooks, description, alternates,
// refs, reflogs, and the objects only it held (a loose one, a pack the
// upstream's objects are not in, and one broken in a pack whose loose copy
// is sound). The old repository is set aside
// whole in the new one's quarantine; a scratch directory a crashed
// reclone left beside it is set aside too, and no run takes it for a
// repository. The clone fsck-clean, git reads every object it read before,
// the metrics say it.
func TestMirrorVerifyReclone(t *testing.T) {
	env := env(t)
	base, _, tree, m := durableMirror(t, env, "-c", "fetch.unpackLimit=1")
	store := filepath.Join(base, "store.git")
	gittest.Git(t, env, base, "init", "-q", "--bare", store)
	stored := strings.TrimSpace(string(gittest.GitIn(t, env, store, []byte("in the store\n"), "hash-object", "-w", "--stdin")))
	gittest.WriteFile(t, m, "objects/info/alternates", filepath.Join(store, "objects")+"\n")
	lone := strings.TrimSpace(string(gittest.GitIn(t, env, m, []byte("only the mirror has it\n"), "hash-object", "-w", "--stdin")))
	ownPack := strings.TrimSpace(string(gittest.GitIn(t, env, m, []byte("a packed one of its own\n"), "hash-object", "-w", "--stdin")))
	gittest.GitIn(t, env, m, []byte(ownPack+"\n"), "pack-objects", "-q", "objects/pack/pack")
	os.Remove(filepath.Join(m, "objects", ownPack[:2], ownPack[2:]))
	// Broken in a pack of its own, sound as a loose object: carried from
	// there.
	twice := strings.TrimSpace(string(gittest.GitIn(t, env, m, []byte("broken in a pack, sound loose\n"), "hash-object", "-w", "--stdin")))
	sum := strings.TrimSpace(string(gittest.GitIn(t, env, m, []byte(twice+"\n"), "pack-objects", "-q", "objects/pack/pack")))
	flipByte(t, filepath.Join(m, "objects", "pack", "pack-"+sum+".pack"), 12+4)
	gittest.Git(t, env, m, "config", "mirror.note", "carried over")
	gittest.WriteFile(t, m, "hooks/post-fetch", "#!/bin/sh\necho fetched\n")
	os.Chmod(filepath.Join(m, "hooks/post-fetch"), 0o755)
	gittest.WriteFile(t, m, "description", "the mirror of up\n")
	gittest.Git(t, env, m, "update-ref", "--create-reflog", "-m", "kept", "refs/local/kept", "main")
	leftover := filepath.Join(tree, ".m.git.durable-reclone")
	gittest.Git(t, env, base, "init", "-q", "--bare", leftover)
	before := readableObjects(t, env, m, nil)
	refsBefore := refs(t, env, m)
	metrics := filepath.Join(base, "verify.prom")
	stats := filepath.Join(base, "stats")
	c := verifier(t, append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+stats), "--reclone", "--metrics", metrics, tree)
	l := runnerLine(t, c, m)
	if c.Code != 0 || !strings.Contains(l, " ok ") || !strings.Contains(l, "recloned in") {
		t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
	}
	if v := verdictOf(t, stats, m); !strings.Contains(v, `"carried over 3 objects the upstream did not send"`) || !strings.Contains(v, `"refetched-whole":"a fresh clone swapped in"`) {
		t.Errorf("the verdict: %s", v)
	}
	if n := strings.Count(strings.TrimSpace(string(c.Stdout)), "\n") + 1; n != 1 {
		t.Errorf("%d lines: a reclone's scratch directory taken for a repository?\n%s", n, c.Stdout)
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict", "--no-dangling")
	readsAllNow(t, env, m, append(before, stored, lone, ownPack, twice))
	if got := refs(t, env, m); got != refsBefore {
		t.Errorf("refs\n%s\nwant\n%s", got, refsBefore)
	}
	if got := strings.TrimSpace(gittest.Git(t, env, m, "reflog", "show", "--format=%gs", "refs/local/kept")); got != "kept" {
		t.Errorf("the reflog was not carried over: %q", got)
	}
	if got := strings.TrimSpace(gittest.Git(t, env, m, "config", "mirror.note")); got != "carried over" {
		t.Errorf("the configuration was not carried over: %q", got)
	}
	if st, err := os.Stat(filepath.Join(m, "hooks/post-fetch")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("the hook was not carried over as it was: %v", err)
	}
	if got := string(readFile(t, filepath.Join(m, "description"))); got != "the mirror of up\n" {
		t.Errorf("description: %q", got)
	}
	kept, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "repository", "objects", "info", "alternates"))
	left, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "repository", "durable-quarantine", "*", "reclone-left-m.git", "HEAD"))
	if len(kept) != 1 || len(left) != 1 {
		t.Errorf("the old repository (%v) and the scratch left (%v) not set aside", kept, left)
	}
	if _, err := os.Lstat(leftover); !os.IsNotExist(err) {
		t.Errorf("the scratch directory is still beside the mirror: %v", err)
	}
	if got := string(readFile(t, metrics)); !strings.Contains(got, series("git_durable_verify_recloned", tree, m)+"1\n") || !strings.Contains(got, series("git_durable_verify_retired_files", tree, m)+"2\n") { // the scratch left, the old repository
		t.Errorf("metrics:\n%s", got)
	}
	// A second run is an ordinary --verify of the new repository.
	if c := verifier(t, env, tree); c.Code != 0 || !strings.Contains(runnerLine(t, c, m), "verified") {
		t.Errorf("exit %d after the reclone\n%s", c.Code, c.Stdout)
	}
}

// TestMirrorUpdateSetsAsideScratch: what a reclone stopped by a crash
// left beside a mirror (its scratch directory: the new repository, or
// the old one after the exchange) is set aside in the mirror's quarantine
// by the next update, never deleted, and never updated as a repository.
func TestMirrorUpdateSetsAsideScratch(t *testing.T) {
	env := env(t)
	base, _, tree, m := durableMirror(t, env)
	leftover := filepath.Join(tree, ".m.git.durable-reclone")
	gittest.Git(t, env, base, "init", "-q", "--bare", leftover)
	c := runner(t, env, tree)
	l := runnerLine(t, c, m)
	if c.Code != 0 || !strings.Contains(l, "set aside what a reclone stopped by a crash left beside it") {
		t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
	}
	if n := strings.Count(strings.TrimSpace(string(c.Stdout)), "\n") + 1; n != 1 {
		t.Errorf("%d lines:\n%s", n, c.Stdout)
	}
	if left, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "reclone-left-m.git", "HEAD")); len(left) != 1 {
		t.Errorf("not set aside: %v", left)
	}
	if _, err := os.Lstat(leftover); !os.IsNotExist(err) {
		t.Errorf("still beside the mirror: %v", err)
	}
}

// readsAllNow fails unless git reads every object of ids in dir.
func readsAllNow(t *testing.T, env []string, dir string, ids []string) {
	t.Helper()
	if err := readsAll(env, "", ids)(dir); err != nil {
		t.Fatal(err)
	}
}

// ownBlobMirror is a mirror whose only pack holds a 256 KiB blob of the
// upstream's (so that a byte flipped in it breaks more than a quarter of
// the packs' bytes: a mend would fetch everything) and a blob the upstream
// never had; it returns the mirror, its tree, the pack, and the big blob's
// offset in it and the own blob's id.
func ownBlobMirror(t *testing.T, env []string) (tree, m, path string, off int64, own string) {
	t.Helper()
	base := t.TempDir()
	work := filepath.Join(base, "work")
	gittest.Git(t, env, base, "init", "-q", "-b", "main", work)
	big := make([]byte, 256<<10)
	rand.Read(big) // does not compress
	gittest.WriteFile(t, work, "big.bin", string(big))
	gittest.Git(t, env, work, "add", ".")
	gittest.Git(t, gittest.Tick(env, 1), work, "commit", "-q", "-m", "big")
	up := filepath.Join(base, "up.git")
	gittest.Git(t, env, base, "clone", "-q", "--bare", work, up)
	tree = filepath.Join(base, "tree")
	m = filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, m)
	own = strings.TrimSpace(string(gittest.GitIn(t, env, m, []byte("only the mirror has it\n"), "hash-object", "-w", "--stdin")))
	gittest.Git(t, env, m, "repack", "-q", "-a", "-d", "--keep-unreachable")
	blob, err := object.ParseID(strings.TrimSpace(gittest.Git(t, env, m, "rev-parse", "main:big.bin")))
	if err != nil {
		t.Fatal(err)
	}
	idx, path := packIndex(t, m)
	off, ok := idx.FindOffset(blob)
	if !ok {
		t.Fatalf("%s is not in %s", blob, path)
	}
	return tree, m, path, off, own
}

// TestMirrorVerifyRecloneRefused: a reclone that would lose what git can
// read — an object only a damaged pack holds, which the upstream never had
// — is refused before anything moves: with --reclone, exit 1 and the
// mirror as it was (the same files, no scratch directory left); without
// it, where a mend would fetch everything, the mend is made in place and
// keeps that object.
func TestMirrorVerifyRecloneRefused(t *testing.T) {
	env := env(t)
	tree, m, path, off, own := ownBlobMirror(t, env)
	flipByte(t, path, off+1000)
	damaged := readFile(t, path)
	c := verifier(t, env, "--reclone", tree)
	l := runnerLine(t, c, m)
	if c.Code != 1 || !strings.Contains(l, "not recloned: "+filepath.Base(path)+" is damaged and holds 1 object the upstream did not send") {
		t.Fatalf("exit %d, %q", c.Code, l)
	}
	if got := readFile(t, path); !bytes.Equal(got, damaged) {
		t.Error("the damaged pack changed")
	}
	if q, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "repository")); len(q) != 0 {
		t.Errorf("set aside: %v", q)
	}
	if s, _ := filepath.Glob(filepath.Join(tree, ".*")); len(s) != 0 {
		t.Errorf("left beside the mirror: %v", s)
	}
	c = verifier(t, env, tree)
	l = runnerLine(t, c, m)
	if c.Code != 0 || !strings.Contains(l, "mended in") || !strings.Contains(l, "in place, not swapped: pack-") || !strings.Contains(l, ".pack is damaged and holds 1 object the upstream did not send") {
		t.Fatalf("exit %d, %q", c.Code, l)
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict", "--no-dangling")
	readsAllNow(t, env, m, []string{own})
}

// TestMirrorVerifyRecloneOptions: --reclone goes with --verify only.
func TestMirrorVerifyRecloneOptions(t *testing.T) {
	env := env(t)
	_, _, tree, _ := durableMirror(t, env)
	c := runner(t, env, "--reclone", tree)
	if c.Code != 129 || !strings.Contains(string(c.Stderr), "error: --reclone goes with --verify") {
		t.Errorf("exit %d\n%s", c.Code, c.Stderr)
	}
	c = verifier(t, env, "-h")
	if !strings.Contains(fmt.Sprint(string(c.Stdout), string(c.Stderr)), "--reclone") {
		t.Errorf("--verify -h does not say --reclone:\n%s%s", c.Stdout, c.Stderr)
	}
}

// TestMirrorVerifyRecloneWorkTree: a work tree's .git is recloned too,
// from a remote named by a path relative to the work tree (as git reads
// it): the work tree's files and index are untouched and git status is
// clean after.
func TestMirrorVerifyRecloneWorkTree(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	w := filepath.Join(base, "w")
	gittest.Git(t, env, base, "clone", "-q", up, w)
	gittest.Git(t, env, w, "config", "remote.origin.url", "../up.git")
	headBefore := gittest.Git(t, env, w, "rev-parse", "HEAD")
	c := verifier(t, env, "--reclone", w)
	l := runnerLine(t, c, filepath.Join(w, ".git"))
	if c.Code != 0 || !strings.Contains(l, "recloned in") {
		t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
	}
	gittest.Git(t, env, w, "fsck", "--full", "--strict", "--no-dangling")
	if got := gittest.Git(t, env, w, "status", "--porcelain"); got != "" {
		t.Errorf("git status after the reclone:\n%s", got)
	}
	if got := gittest.Git(t, env, w, "rev-parse", "HEAD"); got != headBefore {
		t.Errorf("HEAD %s, was %s", got, headBefore)
	}
	if beside, _ := filepath.Glob(filepath.Join(w, "..git*")); len(beside) != 0 {
		t.Errorf("left in the work tree: %v", beside)
	}
}
