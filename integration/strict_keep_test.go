package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestStrictKeepMatchesIndexPack runs each --strict case through git
// index-pack --stdin --strict and through ours keeping the pack (--keep):
// the same exit code and stderr, and a pack published only when git
// publishes one. A .gitmodules blob is the one difference: git index-pack
// checks it on arrival when a tree named it before ("fsck error in packed
// object"), else at the end ("fsck error in pack objects") — and then it
// has already published the pack. Ours always checks it at the end, and
// publishes nothing that fails.
func TestStrictKeepMatchesIndexPack(t *testing.T) {
	env := env(t)
	for _, sc := range strictCases() {
		t.Run(sc.name, func(t *testing.T) {
			src := gittest.Init(t, env, true, "")
			ids := sc.objects(t, env, src)
			pack := packOf(t, env, src, strings.Join(ids, "\n")+"\n")
			args := sc.args
			if args == nil {
				args = []string{"--strict"}
			}
			var runs [2]result
			for i, cmd := range []string{"index-pack", "unpack-durable"} {
				repo := gittest.Init(t, env, true, "")
				if sc.setup != nil {
					sc.setup(t, env, repo)
				}
				more := []string{"--stdin", "--fix-thin"}
				if i == 1 {
					more = []string{"--keep"}
				}
				runs[i] = unpackInto(t, env, repo, cmd, pack, append(more, args...)...)
			}
			git, ours := runs[0], runs[1]
			want := string(git.Stderr)
			if strings.Contains(sc.name, "gitmodules") {
				want = strings.Replace(want, "fatal: fsck error in packed object", "fatal: fsck error in pack objects", 1)
			}
			if git.Code != ours.Code || want != string(ours.Stderr) {
				t.Fatalf("exit %d, git %d\nours:\n%s\ngit:\n%s", ours.Code, git.Code, ours.Stderr, git.Stderr)
			}
			t.Logf("both exit %d: %q", ours.Code, ours.Stderr)
			gp, _ := filepath.Glob(filepath.Join(git.repo, "objects/pack/*.idx"))
			op, _ := filepath.Glob(filepath.Join(ours.repo, "objects/pack/*.idx"))
			if len(gp) != len(op) && !(ours.Code != 0 && len(op) == 0) {
				t.Errorf("packs: git %v, ours %v", gp, op)
			}
			if left, _ := filepath.Glob(filepath.Join(ours.repo, "objects/pack/*")); ours.Code != 0 && len(left) != 0 {
				t.Errorf("a refused pack left files: %v", left)
			}
			if looseCount(t, ours.repo) != looseCount(t, git.repo) {
				t.Errorf("loose objects: git %d, ours %d", looseCount(t, git.repo), looseCount(t, ours.repo))
			}
		})
	}
}

// TestRemoteFsckCleanHistory clones and fetches a sound history (deltas,
// tags, thin packs) with fetch.fsckObjects on, exploded and kept: no false
// alarm, and the same refs and objects as git with the same settings.
func TestRemoteFsckCleanHistory(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	for _, limit := range []string{"10000", "1"} {
		t.Run("unpackLimit="+limit, func(t *testing.T) {
			work := t.TempDir()
			cfg := []string{"-c", "fetch.fsckObjects=true", "-c", "fetch.unpackLimit=" + limit}
			git, ours := filepath.Join(work, "git"), filepath.Join(work, "ours")
			gittest.Git(t, env, work, append(cfg, "clone", "-q", "--bare", "file://"+up, git)...)
			c, stats := durable(t, env, work, append(cfg, "clone", "-q", "--bare", "durable::"+up, ours)...)
			mustRun(t, c, "clone through the helper")
			if kept := stats[0].Pack != ""; kept != (limit == "1") {
				t.Errorf("kept %v with fetch.unpackLimit=%s", kept, limit)
			}
			advance(t, env, up, 2, "v"+limit)
			for _, dir := range []string{git, ours} {
				gittest.Git(t, env, dir, "config", "remote.origin.fetch", "+refs/*:refs/*")
				c, _ := durable(t, env, dir, append(cfg, "fetch", "-q", "origin")...)
				mustRun(t, c, "fetch in "+filepath.Base(dir))
			}
			if a, b := refs(t, env, git), refs(t, env, ours); a != b {
				t.Fatalf("refs differ:\ngit:\n%s\nours:\n%s", a, b)
			}
			if a, b := gittest.Objects(t, env, git), gittest.Objects(t, env, ours); a != b {
				t.Fatalf("objects differ: %s", firstDiff(a, b))
			}
			gittest.Fsck(t, env, ours)
		})
	}
}
