package integration

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteHavesOldTag: a fetch tells the upstream what every ref points
// at, not only the most recent commits. The only ref that reaches an old
// side commit is an annotated tag, older than the 256 most recent commits
// of main; a new branch on that commit must then come as its three new
// objects, not with the side commit's history again.
func TestRemoteHavesOldTag(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstreamOf(t, env, base, "up.git", "sha1", 5, 300)
	tree := func(files map[string]string) string {
		var b strings.Builder
		for name, text := range files {
			blob := strings.TrimSpace(string(gittest.GitIn(t, env, up, []byte(text), "hash-object", "-w", "--stdin")))
			b.WriteString("100644 blob " + blob + "\t" + name + "\n")
		}
		return strings.TrimSpace(string(gittest.GitIn(t, env, up, []byte(b.String()), "mktree")))
	}
	side := strings.TrimSpace(gittest.Git(t, gittest.Tick(env, -10000), up, "commit-tree", "-m", "side", tree(map[string]string{"old.txt": "old side\n"})))
	gittest.Git(t, env, up, "tag", "-a", "-m", "old", "old", side)

	ours := filepath.Join(base, "ours")
	c, _ := durable(t, env, base, "clone", "durable::file://"+up, ours)
	mustRun(t, c, "clone through the helper")

	next := strings.TrimSpace(gittest.Git(t, gittest.Tick(env, 400), up, "commit-tree", "-p", side, "-m", "next",
		tree(map[string]string{"old.txt": "old side\n", "new.txt": "new side\n"})))
	gittest.Git(t, env, up, "update-ref", "refs/heads/side2", next)
	c, stats := durable(t, env, ours, "fetch")
	mustRun(t, c, "fetch through the helper")
	total := 0
	for _, s := range stats {
		total += s.Objects
	}
	if total != 3 {
		t.Errorf("the fetch received %d objects, want 3 (a commit, its tree, a blob): the tag's commit not among the haves?", total)
	}
	if got := strings.TrimSpace(gittest.Git(t, env, ours, "rev-parse", "origin/side2")); got != next {
		t.Errorf("origin/side2 is %s, want %s", got, next)
	}
	gittest.Fsck(t, env, ours)
}

// TestRemoteHavesBrokenHistory: where a commit below a ref's tip is broken
// (a crash emptied it), git rev-list cannot walk the history, and the fetch
// still tells the upstream what the refs' tips are — the first round is
// the tips, as git rev-list --no-walk --all lists them, with no walk —
// without a warning that it could not walk the refs. (The broken commit exists nowhere else: git's check after the
// fetch fails on it, as git's own fetch does.)
func TestRemoteHavesBrokenHistory(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	ours := filepath.Join(base, "ours")
	c, _ := durable(t, env, base, "clone", "durable::file://"+up, ours)
	mustRun(t, c, "clone through the helper")
	gittest.Git(t, env, ours, "checkout", "-q", "-b", "work")
	for i, name := range []string{"w1.txt", "w2.txt"} {
		if err := os.WriteFile(filepath.Join(ours, name), []byte(name+"\n"), 0o666); err != nil {
			t.Fatal(err)
		}
		gittest.Git(t, env, ours, "add", name)
		gittest.Git(t, gittest.Tick(env, 5000+i), ours, "commit", "-q", "-m", name)
	}
	broken := strings.TrimSpace(gittest.Git(t, env, ours, "rev-parse", "work~1"))
	p := filepath.Join(ours, ".git", "objects", broken[:2], broken[2:])
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	if c := gittest.Exec(t, env, ours, nil, "git", "rev-list", "--max-count=256", "--all"); c.Code == 0 {
		t.Fatal("git rev-list walked past the emptied commit")
	}
	tips := sortedLines(gittest.Git(t, env, ours, "rev-list", "--no-walk", "--all"))

	advance(t, env, up, 1, "")
	packets := filepath.Join(base, "packets")
	c, _ = durable(t, append(env, "GIT_TRACE_PACKET="+packets), ours, "fetch")
	if strings.Contains(string(c.Stderr), "cannot walk the local refs") {
		t.Errorf("the helper sent no haves:\n%s", c.Stderr)
	}
	trace, err := os.ReadFile(packets)
	if err != nil {
		t.Fatal(err)
	}
	var haves []string
	for _, l := range strings.Split(string(trace), "\n") {
		if _, id, ok := strings.Cut(l, "< have "); ok {
			haves = append(haves, strings.TrimSpace(id))
		}
	}
	sort.Strings(haves)
	for _, h := range haves {
		if !strings.Contains(tips+"\n", h+"\n") {
			t.Errorf("have %s is no tip of the refs:\n%s", h, tips)
		}
	}
	if len(haves) == 0 {
		t.Errorf("no have sent; the refs' tips:\n%s", tips)
	}
}

// TestRemoteHavesLostTip: a ref whose object a crash lost or emptied (a
// loose commit written without a sync) is not sent as a have — sent, it
// tells the upstream not to send the very object that is missing, and
// every later fetch fails git's check — and the fetch brings the object
// back: as plain git's fetch does where the file is gone; where it is
// empty, plain git trusts it and fails.
func TestRemoteHavesLostTip(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	for _, damage := range []string{"lost", "emptied"} {
		t.Run(damage, func(t *testing.T) {
			dir := filepath.Join(base, damage)
			plain, ours := filepath.Join(dir, "plain.git"), filepath.Join(dir, "ours.git")
			gittest.Git(t, env, base, "clone", "-q", "--mirror", "file://"+up, plain)
			gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, ours)
			advance(t, env, up, 1, "")
			tip := strings.TrimSpace(gittest.Git(t, env, up, "rev-parse", "main"))
			for _, m := range []string{plain, ours} {
				gittest.Git(t, env, m, "-c", "fetch.unpackLimit=100", "remote", "update", "--prune")
				p := filepath.Join(m, "objects", tip[:2], tip[2:])
				var err error
				if damage == "lost" {
					err = os.Remove(p)
				} else {
					err = os.WriteFile(p, nil, 0o444)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			advance(t, env, up, 1, "")
			for _, m := range []string{plain, ours} {
				c := gittest.Exec(t, env, m, nil, "git", "remote", "update", "--prune")
				if m == plain && damage == "emptied" {
					if c.Code == 0 {
						t.Errorf("plain git's update passed over an emptied tip")
					}
					continue
				}
				mustRun(t, c, "the update of "+filepath.Base(m))
				if a, b := refs(t, env, m), refs(t, env, up); a != b {
					t.Errorf("%s: refs\n%s\nupstream\n%s", filepath.Base(m), a, b)
				}
				gittest.Fsck(t, env, m)
			}
		})
	}
}
