package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/remote"
)

// fsckCase is an upstream branch that git's fsck refuses: a commit, on top
// of main, whose tree is crafted.
type fsckCase struct {
	name string
	// build writes the objects in the upstream dir and returns the commit
	// and the object the complaint is about (what a skip list names).
	build func(t *testing.T, env []string, dir string) (tip, bad string)
	msgID string // the message fetch.fsck.<msg-id>=ignore lets through
	// finish: ours finds it in fsck_finish, as git unpack-objects --strict
	// does ("fsck error in pack objects"), where git's index-pack, given
	// the tree before the blob, finds it on the blob's arrival.
	finish bool
}

// evilCommit writes a commit of tree on top of the upstream's main.
func evilCommit(t *testing.T, env []string, dir, tree string) string {
	t.Helper()
	return strings.TrimSpace(gittest.Git(t, env, dir, "commit-tree", "-p", "main", "-m", "evil", tree))
}

func fsckCases() []fsckCase {
	modules := func(content string) func(t *testing.T, env []string, dir string) (string, string) {
		return func(t *testing.T, env []string, dir string) (string, string) {
			blob := literally(t, env, dir, "blob", content)
			tree := literally(t, env, dir, "tree", treeEntry("100644", ".gitmodules", blob))
			return evilCommit(t, env, dir, tree), blob
		}
	}
	return []fsckCase{
		{name: "dotgit", msgID: "hasDotgit", build: func(t *testing.T, env []string, dir string) (string, string) {
			blob := literally(t, env, dir, "blob", "[core]\n\tworktree = ../../..\n")
			tree := literally(t, env, dir, "tree", treeEntry("100644", ".git", blob))
			return evilCommit(t, env, dir, tree), tree
		}},
		{name: "dash url", msgID: "gitmodulesUrl", finish: true,
			build: modules("[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch${IFS}pwned\n")},
		{name: "dotdot name", msgID: "gitmodulesName", finish: true,
			build: modules("[submodule \"../../hooks\"]\n\tpath = x\n\turl = ./x\n")},
	}
}

// fsckUpstream makes a bare upstream with a small history on main and the
// case's commit on branch evil.
func fsckUpstream(t *testing.T, env []string, fc fsckCase) (dir, tip, bad string) {
	t.Helper()
	dir = gittest.Init(t, env, true, "")
	gittest.History(t, env, dir, 6, 3)
	tip, bad = fc.build(t, env, dir)
	gittest.Git(t, env, dir, "update-ref", "refs/heads/evil", tip)
	return dir, tip, bad
}

// fsckScenario is a fetch with -c settings; kept: the pack is kept.
type fsckScenario struct {
	config []string
	kept   bool
}

// fetched is one client's fetch: its repository, its refs and loose
// objects before, the run and the helper's batch statistics (ours only).
type fetched struct {
	dir, before string
	loose       int
	c           *gittest.Cmd
	stats       []remote.BatchStats
}

// fetchBoth makes two clients that have the upstream's main, git's (by
// file://) and ours (durable::file://), then runs `git -c <config>… fetch
// origin` in both.
func fetchBoth(t *testing.T, env []string, up string, config ...string) (git, ours fetched) {
	t.Helper()
	for i, url := range []string{"file://" + up, "durable::file://" + up} {
		dir := gittest.Init(t, env, false, "")
		gittest.Git(t, env, dir, "remote", "add", "origin", url)
		gittest.Git(t, env, dir, "fetch", "-q", "origin", "main")
		f := fetched{dir: dir, before: refs(t, env, dir), loose: looseCount(t, filepath.Join(dir, ".git"))}
		args := []string{"fetch", "origin"}
		for _, kv := range config {
			args = append([]string{"-c", kv}, args...)
		}
		f.c, f.stats = durable(t, env, dir, args...)
		if i == 0 {
			git = f
		} else {
			ours = f
		}
	}
	return git, ours
}

// diagnostics returns the error: and fatal: lines of stderr.
func diagnostics(stderr []byte) []string {
	var out []string
	for _, l := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(l, "error: ") || strings.HasPrefix(l, "fatal: ") {
			out = append(out, l)
		}
	}
	return out
}

// objectWarnings returns the lines of stderr that warn about an object.
func objectWarnings(stderr []byte) []string {
	var out []string
	for _, l := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(l, "warning: object ") {
			out = append(out, l)
		}
	}
	return out
}

// gitWrappers are the lines git fetch adds when its index-pack dies; the
// helper is that index-pack, and git prints nothing after a helper dies.
var gitWrappers = []string{"fatal: index-pack failed", "fatal: fetch-pack: invalid index-pack output"}

// sameRefusal fails unless git and ours both exited 128 with the same
// complaints: the same error lines, and git's fatal line (but for a
// .gitmodules blob checked at the end, see fsckCase.finish) without the
// line git adds about its index-pack.
func sameRefusal(t *testing.T, fc fsckCase, git, ours *gittest.Cmd) {
	t.Helper()
	g, o := diagnostics(git.Stderr), diagnostics(ours.Stderr)
	if git.Code != 128 || ours.Code != 128 || len(g) < 3 || !slices.Contains(gitWrappers, g[len(g)-1]) {
		t.Fatalf("exit %d, git %d\nours:\n%s\ngit:\n%s", ours.Code, git.Code, ours.Stderr, git.Stderr)
	}
	want := slices.Clone(g[:len(g)-1])
	if fc.finish && want[len(want)-1] == "fatal: fsck error in packed object" {
		want[len(want)-1] = "fatal: fsck error in pack objects"
	}
	if !slices.Equal(o, want) {
		t.Fatalf("ours:\n%s\nwant:\n%s\n(git said:\n%s)", strings.Join(o, "\n"), strings.Join(want, "\n"), git.Stderr)
	}
	t.Logf("both exit 128; ours: %q", ours.Stderr)
}

// refusedBoth checks a refused fetch in both clients: same refusal, refs
// as before, the same FETCH_HEAD, and in ours no pack and no trace of the
// refused commit.
func refusedBoth(t *testing.T, env []string, fc fsckCase, tip string, git, ours fetched) {
	t.Helper()
	sameRefusal(t, fc, git.c, ours.c)
	for _, f := range []fetched{git, ours} {
		if now := refs(t, env, f.dir); now != f.before {
			t.Fatalf("refs changed in %s:\n%s\nnow:\n%s", f.dir, f.before, now)
		}
	}
	if a, b := fetchHead(t, git.dir), fetchHead(t, ours.dir); a != b {
		t.Errorf("FETCH_HEAD: git %q, ours %q", a, b)
	}
	if files, _ := filepath.Glob(filepath.Join(ours.dir, ".git/objects/pack/*")); len(files) != 0 {
		t.Errorf("files in objects/pack: %v", files)
	}
	if c := gittest.Exec(t, env, ours.dir, nil, "git", "cat-file", "-e", tip); c.Code == 0 && !fc.finish {
		t.Errorf("the refused commit %s was written", tip)
	}
	if len(ours.stats) != 1 || ours.stats[0].Error == "" {
		t.Errorf("stats %+v", ours.stats)
	}
}

// fetchHead reads a client's FETCH_HEAD with the upstream's address, which
// differs between git's client and ours, cut out.
func fetchHead(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".git/FETCH_HEAD"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	s := string(b)
	if i := strings.Index(s, "file://"); i >= 0 {
		s = s[:i]
	}
	return s
}

// acceptedBoth checks a fetch that both clients complete: exit 0, the same
// warnings about objects, the same refs, the evil branch fetched.
func acceptedBoth(t *testing.T, env []string, tip string, git, ours fetched) {
	t.Helper()
	mustRun(t, git.c, "git fetch")
	mustRun(t, ours.c, "fetch through the helper")
	if a, b := objectWarnings(git.c.Stderr), objectWarnings(ours.c.Stderr); !slices.Equal(a, b) {
		t.Fatalf("warnings: git %q, ours %q", a, b)
	}
	if a, b := refs(t, env, git.dir), refs(t, env, ours.dir); a != b {
		t.Fatalf("refs differ:\ngit:\n%s\nours:\n%s", a, b)
	}
	if got := strings.TrimSpace(gittest.Git(t, env, ours.dir, "rev-parse", "origin/evil")); got != tip {
		t.Fatalf("origin/evil is %q, want %s", got, tip)
	}
}

// TestRemoteFetchFsck fetches hostile branches (a tree with .git, a
// .gitmodules with a url that is an option, a submodule name with ../)
// with fetch.fsckObjects / transfer.fsckObjects, beside git: the same
// refusal and exit code, refs untouched, loose and kept alike (kept:
// nothing written); and the fetch goes through, as with git, with fsck off
// (fetch.fsckObjects=false wins), with the message set to warn (the same
// warning) or ignore, or with the object on fetch.fsck.skipList.
func TestRemoteFetchFsck(t *testing.T) {
	env := env(t)
	for _, fc := range fsckCases() {
		t.Run(fc.name, func(t *testing.T) {
			up, tip, bad := fsckUpstream(t, env, fc)
			skip := filepath.Join(t.TempDir(), "skip")
			if err := os.WriteFile(skip, []byte("# refused upstream\n"+bad+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, sc := range []fsckScenario{
				{config: []string{"fetch.fsckObjects=true"}},
				{config: []string{"transfer.fsckObjects=true"}},
				{config: []string{"transfer.fsckObjects=false", "fetch.fsckObjects=true", "fetch.unpackLimit=1"}, kept: true},
			} {
				t.Run(strings.Join(sc.config, " "), func(t *testing.T) {
					git, ours := fetchBoth(t, env, up, sc.config...)
					refusedBoth(t, env, fc, tip, git, ours)
					if n := looseCount(t, filepath.Join(ours.dir, ".git")); sc.kept && n != ours.loose {
						t.Errorf("%d loose objects, %d before: the kept path wrote some", n, ours.loose)
					}
				})
			}
			for _, sc := range []fsckScenario{
				{},
				{config: []string{"transfer.fsckObjects=true", "fetch.fsckObjects=false"}},
				{config: []string{"fetch.fsckObjects=true", "fetch.fsck." + fc.msgID + "=warn"}},
				{config: []string{"fetch.fsckObjects=true", "fetch.fsck." + fc.msgID + "=ignore"}},
				{config: []string{"fetch.fsckObjects=true", "fetch.fsck." + fc.msgID + "=ignore", "fetch.unpackLimit=1"}, kept: true},
				{config: []string{"fetch.fsckObjects=true", "fetch.fsck.skipList=" + skip}},
			} {
				t.Run("ok "+strings.Join(sc.config, " "), func(t *testing.T) {
					git, ours := fetchBoth(t, env, up, sc.config...)
					acceptedBoth(t, env, tip, git, ours)
					if sc.kept && (len(ours.stats) != 1 || ours.stats[0].Pack == "") {
						t.Errorf("the pack was not kept: %+v", ours.stats)
					}
				})
			}
		})
	}
}

// TestRemoteCloneFsck clones a hostile upstream served by git daemon with
// fetch.fsckObjects, beside git: the same refusal, and no clone left.
func TestRemoteCloneFsck(t *testing.T) {
	env := env(t)
	fc := fsckCases()[0]
	base := t.TempDir()
	up, _, _ := fsckUpstream(t, env, fc)
	if err := os.Rename(up, filepath.Join(base, "up.git")); err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("git://127.0.0.1:%d/up.git", startDaemon(t, env, base))
	var runs [2]*gittest.Cmd
	for i, u := range []string{url, "durable::" + url} {
		dst := filepath.Join(base, fmt.Sprintf("clone%d", i))
		runs[i], _ = durable(t, env, base, "-c", "fetch.fsckObjects=true", "clone", "--bare", u, dst)
		if _, err := os.Stat(dst); !os.IsNotExist(err) {
			t.Errorf("%s is left: %v", dst, err)
		}
	}
	sameRefusal(t, fc, runs[0], runs[1])
}
