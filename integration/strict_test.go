package integration

import (
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// strictCase is a pack made of objects written with git hash-object
// --literally, unpacked with --strict (or a --strict=<list>).
type strictCase struct {
	name    string
	objects func(t *testing.T, env []string, src string) []string // ids to pack
	args    []string
	setup   func(t *testing.T, env []string, repo string)
}

func strictCases() []strictCase {
	commit := func(tree string) string {
		return "tree " + tree + "\nauthor A <a@b.c> 1700000000 +0000\ncommitter C <c@d.e> 1700000000 +0000\n\nmsg\n"
	}
	full := func(t *testing.T, env []string, src string) []string {
		blob := literally(t, env, src, "blob", "hello\n")
		tree := literally(t, env, src, "tree", treeEntry("100644", "hello.txt", blob))
		return []string{blob, tree, literally(t, env, src, "commit", commit(tree))}
	}
	return []strictCase{
		{name: "complete pack", objects: full},
		{name: "tree without its blob", objects: func(t *testing.T, env []string, src string) []string {
			blob := literally(t, env, src, "blob", "hello\n")
			return []string{literally(t, env, src, "tree", treeEntry("100644", "hello.txt", blob))}
		}},
		{name: "tree whose blob is in the repository", objects: func(t *testing.T, env []string, src string) []string {
			blob := literally(t, env, src, "blob", "hello\n")
			return []string{literally(t, env, src, "tree", treeEntry("100644", "hello.txt", blob))}
		}, setup: func(t *testing.T, env []string, repo string) {
			gittest.GitIn(t, env, repo, []byte("hello\n"), "hash-object", "-w", "--stdin")
		}},
		{name: "tree with .git", objects: func(t *testing.T, env []string, src string) []string {
			blob := literally(t, env, src, "blob", "x\n")
			return []string{blob, literally(t, env, src, "tree", treeEntry("100644", ".git", blob))}
		}},
		{name: "tree with .GIT demoted", args: []string{"--strict=hasDotgit=warn"}, objects: func(t *testing.T, env []string, src string) []string {
			blob := literally(t, env, src, "blob", "x\n")
			return []string{blob, literally(t, env, src, "tree", treeEntry("100644", ".GIT", blob))}
		}},
		{name: "unsorted tree", objects: func(t *testing.T, env []string, src string) []string {
			blob := literally(t, env, src, "blob", "x\n")
			return []string{blob, literally(t, env, src, "tree", treeEntry("100644", "b", blob)+treeEntry("100644", "a", blob))}
		}},
		{name: "commit without author", objects: func(t *testing.T, env []string, src string) []string {
			ids := full(t, env, src)
			return append(ids[:2], literally(t, env, src, "commit", "tree "+ids[1]+"\ncommitter C <c@d.e> 1700000000 +0000\n\nmsg\n"))
		}},
		{name: "bogus commit", objects: func(t *testing.T, env []string, src string) []string {
			return []string{literally(t, env, src, "commit", "this is not a commit\n")}
		}},
		{name: "gitmodules with a dash url", objects: func(t *testing.T, env []string, src string) []string {
			mods := literally(t, env, src, "blob", "[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=evil\n")
			tree := literally(t, env, src, "tree", treeEntry("100644", ".gitmodules", mods))
			return []string{mods, tree, literally(t, env, src, "commit", commit(tree))}
		}},
		{name: "missing email ignored", args: []string{"--strict=missingEmail=ignore"}, objects: func(t *testing.T, env []string, src string) []string {
			ids := full(t, env, src)
			return append(ids[:2], literally(t, env, src, "commit", "tree "+ids[1]+"\nauthor A 1700000000 +0000\ncommitter C <c@d.e> 1700000000 +0000\n\nmsg\n"))
		}},
		{name: "bad strict list", args: []string{"--strict=nosuchmessage=error"}, objects: full},
	}
}

// TestStrictMatchesGit runs each --strict case through git unpack-objects
// and ours: same exit code, same stderr, same objects.
func TestStrictMatchesGit(t *testing.T) {
	env := env(t)
	for _, sc := range strictCases() {
		t.Run(sc.name, func(t *testing.T) {
			src := gittest.Init(t, env, true, "")
			ids := sc.objects(t, env, src)
			pack := packOf(t, env, src, strings.Join(ids, "\n")+"\n")
			var setup func(string)
			if sc.setup != nil {
				setup = func(repo string) { sc.setup(t, env, repo) }
			}
			args := sc.args
			if args == nil {
				args = []string{"--strict"}
			}
			git, ours := both(t, env, "", pack, setup, args...)
			if git.Code != ours.Code || string(git.Stderr) != string(ours.Stderr) {
				t.Fatalf("exit %d, git %d\nours:\n%s\ngit:\n%s", ours.Code, git.Code, ours.Stderr, git.Stderr)
			}
			t.Logf("both exit %d: %q", ours.Code, ours.Stderr)
			if a, b := gittest.Objects(t, env, git.repo), gittest.Objects(t, env, ours.repo); a != b {
				t.Errorf("objects differ: %s", firstDiff(a, b))
			}
		})
	}
}
