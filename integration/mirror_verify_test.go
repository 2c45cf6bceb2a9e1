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

// verifier runs git-remote-durable --verify with args.
func verifier(t *testing.T, env []string, args ...string) *gittest.Cmd {
	t.Helper()
	return gittest.Exec(t, env, "", nil, filepath.Join(binDir, "git-remote-durable"), append([]string{"--verify"}, args...)...)
}

// packedBlob returns a blob of the mirror dir's only pack, where its entry
// starts, and the pack's path.
func packedBlob(t *testing.T, env []string, dir string) (object.ID, int64, string) {
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
		if strings.TrimSpace(gittest.Git(t, env, dir, "cat-file", "-t", idx.ID(i).String())) == "blob" {
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

// TestMirrorVerify: --verify reads every object of each mirror as git
// fsck --full does, without fetching: a sound mirror is "ok" with what it
// checked; one with a flipped byte in a packed blob, or a ref whose object
// is gone, fails with the damage named (the object, its pack), exit 1,
// where git fsck --full fails too. The metrics say what it found.
func TestMirrorVerify(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	sound, flipped, gone := filepath.Join(tree, "sound.git"), filepath.Join(tree, "flipped.git"), filepath.Join(tree, "gone.git")
	for _, dir := range []string{sound, flipped, gone} {
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, dir)
	}
	blob, off, packPath := packedBlob(t, env, flipped)
	flipByte(t, packPath, off+4)
	gittest.WriteFile(t, gone, "refs/heads/gone", strings.Repeat("5", 40)+"\n")
	for _, dir := range []string{flipped, gone} {
		if c := gittest.Exec(t, env, dir, nil, "git", "fsck", "--full"); c.Code == 0 {
			t.Errorf("git fsck --full passed %s", filepath.Base(dir))
		}
	}
	metrics := filepath.Join(base, "verify.prom")
	c := verifier(t, env, "--metrics", metrics, tree)
	if c.Code != 1 || !strings.Contains(string(c.Stderr), "error: 2 of 3 repositories failed to verify") {
		t.Errorf("exit %d\n%s", c.Code, c.Stderr)
	}
	for dir, want := range map[string]string{
		sound:   " ok ",
		flipped: "bad packed object CRC for " + blob.String(),
		gone:    "refs/heads/gone: its object " + strings.Repeat("5", 40) + " is missing",
	} {
		if l := runnerLine(t, c, dir); !strings.Contains(l, want) {
			t.Errorf("%s: %q, want %q", filepath.Base(dir), l, want)
		}
	}
	if l := runnerLine(t, c, sound); !strings.Contains(l, "(verified ") {
		t.Errorf("sound: %q", l)
	}
	m := string(readFile(t, metrics))
	for _, want := range []string{series("git_durable_verify_success", tree, sound) + "1\n", series("git_durable_verify_broken_objects", tree, sound) + "0\n",
		series("git_durable_verify_success", tree, flipped) + "0\n", series("git_durable_verify_broken_objects", tree, gone) + "1\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q:\n%s", want, m)
		}
	}
	promtoolCheck(t, m)
}
