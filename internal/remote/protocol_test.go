package remote

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/report"
	"github.com/git-durable/git-durable/internal/upstream/transport/stream"
)

const caps = "fetch\npush\noption\ncheck-connectivity\nobject-format\n\n"

// gitServer runs git upload-pack / receive-pack locally: the transport
// the URL names (a path) is the local one, which does, with the helper's
// own sessions (side-band-64k, thin packs, multi_ack_detailed: what real
// servers offer).
func gitServer() stream.Connector { return nil }

func TestCapabilitiesAndEnd(t *testing.T) {
	sealed(t, "")
	s := dialogue(t, "/nowhere.git", "capabilities\n\n", nil)
	if s.code != 0 || s.out != caps || s.err != "" {
		t.Fatalf("%+v", s)
	}
	// git closing the pipe is an end too.
	if s := dialogue(t, "/nowhere.git", "capabilities\n", nil); s.code != 0 || s.out != caps {
		t.Fatalf("%+v", s)
	}
}

func TestBadDialogue(t *testing.T) {
	sealed(t, "")
	for _, tc := range []struct{ in, want string }{
		{"frobnicate\n", "fatal: unknown command 'frobnicate' from git\n"},
		{"capabilities", "fatal: git closed the dialogue in the middle of a line\n"},
		{"fetch " + strings.Repeat("0", 40) + " refs/heads/x\n", "fatal: git closed the dialogue in the middle of a batch\n"},
		{"fetch nonsense\n\n", "fatal: bad fetch command from git: 'fetch nonsense'\n"},
		{strings.Repeat("x", maxLine+10) + "\n", "fatal: a line from git is too long\n"},
	} {
		s := dialogue(t, "/nowhere.git", tc.in, nil)
		if s.code != 128 || s.err != tc.want {
			t.Errorf("%.30q: exit %d, stderr %q; want %q", tc.in, s.code, s.err, tc.want)
		}
	}
	s := dialogue(t, "", "capabilities\n", nil)
	if s.code != 128 || s.err != "fatal: no URL to fetch from or push to\n" {
		t.Errorf("no URL: %+v", s)
	}
}

// fixture is an upstream with a history and an empty local repository.
type fixture struct {
	env        []string
	up, local  string
	main, v10  string // ids
	stats      string // the report.StatsEnv file
	allObjects int    // objects reachable from main and the tag
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	gittest.Need(t)
	f := &fixture{local: t.TempDir()}
	f.env = sealed(t, f.local)
	f.up = gittest.Init(t, f.env, true, "")
	gittest.History(t, f.env, f.up, 20, 20)
	gittest.Git(t, f.env, f.local, "init", "-q", "--bare", f.local)
	// The dialogues count loose objects: above git's unpack limit, the
	// history would come as a kept pack.
	gittest.Git(t, f.env, f.local, "config", "fetch.unpackLimit", "100000")
	f.main = strings.TrimSpace(gittest.Git(t, f.env, f.up, "rev-parse", "main"))
	f.v10 = strings.TrimSpace(gittest.Git(t, f.env, f.up, "rev-parse", "v10"))
	f.allObjects = strings.Count(gittest.Git(t, f.env, f.up, "rev-list", "--objects", "main", "v10"), "\n")
	f.stats = filepath.Join(t.TempDir(), "stats")
	t.Setenv(report.StatsEnv, f.stats)
	return f
}

// loose counts the loose objects of the local repository.
func (f *fixture) loose(t *testing.T) int {
	t.Helper()
	n := 0
	dirs, _ := filepath.Glob(filepath.Join(f.local, "objects", "??"))
	for _, d := range dirs {
		es, _ := os.ReadDir(d)
		n += len(es)
	}
	return n
}

// TestListAndClone plays a clone's dialogue against git upload-pack, for
// the upstream's path and its file:// URL (which once went to go-git's
// in-process server): the refs listed as git wants them, the objects
// written, connectivity-ok.
func TestListAndClone(t *testing.T) {
	for name, scheme := range map[string]string{"go-git": "file://", "git": ""} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			in := "capabilities\noption progress false\noption verbosity 1\noption object-format true\nlist\n" +
				"option check-connectivity true\noption cloning true\n" +
				fmt.Sprintf("fetch %s refs/heads/main\nfetch %s refs/heads/main\nfetch %s refs/tags/v10\n\n\n", f.main, f.main, f.v10)
			s := dialogue(t, scheme+f.up, in, nil)
			if s.code != 0 {
				t.Fatalf("exit %d: %s", s.code, s.err)
			}
			l := lines(s.out)
			want := []string{"fetch", "push", "option", "check-connectivity", "object-format", "", "ok", "ok", "ok", ":object-format sha1"}
			if strings.Join(l[:len(want)], "|") != strings.Join(want, "|") {
				t.Fatalf("dialogue starts %q", l[:len(want)])
			}
			list := strings.Join(l, "\n")
			for _, w := range []string{f.main + " refs/heads/main", f.v10 + " refs/tags/v10", "HEAD"} {
				if !strings.Contains(list, w) {
					t.Errorf("list lacks %q:\n%s", w, list)
				}
			}
			if name == "git" && !strings.Contains(list, "@refs/heads/main HEAD") || !strings.HasSuffix(s.out, "\nok\nok\nconnectivity-ok\n\n") {
				t.Errorf("replies:\n%s", s.out)
			}
			if got := f.loose(t); got != f.allObjects {
				t.Errorf("%d loose objects, want %d", got, f.allObjects)
			}
			gittest.Git(t, f.env, f.local, "update-ref", "refs/heads/main", f.main)
			gittest.Fsck(t, f.env, f.local)
		})
	}
}

// TestFetchIncremental fetches new history into a repository that has the
// old: only the new objects come (haves), through one durable batch.
func TestFetchIncremental(t *testing.T) {
	f := newFixture(t)
	tr := gitServer()
	s := dialogue(t, f.up, fmt.Sprintf("list\nfetch %s refs/heads/main\n\n", f.main), tr)
	if s.code != 0 {
		t.Fatal(s.err)
	}
	gittest.Git(t, f.env, f.local, "update-ref", "refs/heads/main", f.main)
	old := f.loose(t)
	work := t.TempDir()
	gittest.Git(t, f.env, work, "clone", "-q", f.up, work)
	gittest.WriteFile(t, work, "new.txt", "new\n")
	gittest.Git(t, f.env, work, "add", "new.txt")
	gittest.Git(t, f.env, work, "commit", "-q", "-m", "new")
	gittest.Git(t, f.env, work, "push", "-q", f.up, "main")
	tip := strings.TrimSpace(gittest.Git(t, f.env, f.up, "rev-parse", "main"))
	os.Remove(f.stats)
	s = dialogue(t, f.up, fmt.Sprintf("option verbosity 2\nlist\nfetch %s refs/heads/main\n\n", tip), tr)
	if s.code != 0 {
		t.Fatal(s.err)
	}
	if got := f.loose(t) - old; got != 3 {
		t.Errorf("%d new objects, want 3 (commit, tree, blob)", got)
	}
	b, _ := os.ReadFile(f.stats)
	if !strings.Contains(string(b), `"objects":3,`) || !strings.Contains(string(b), `"hardware-flush":1`) {
		t.Errorf("stats: %s", b)
	}
	if !strings.Contains(s.err, "durable: 3 objects (3 written") {
		t.Errorf("verbose line missing: %q", s.err)
	}
	gittest.Git(t, f.env, f.local, "update-ref", "refs/heads/main", tip)
	gittest.Fsck(t, f.env, f.local)
}

// TestFetchFailures: a want the upstream does not have, an upstream that
// is not there.
func TestFetchFailures(t *testing.T) {
	f := newFixture(t)
	s := dialogue(t, f.up, "list\nfetch "+strings.Repeat("1", 40)+" refs/heads/x\n\n", gitServer())
	if s.code != 128 || strings.Count(s.err, "fatal:") != 1 {
		t.Errorf("bad want: exit %d, %q", s.code, s.err)
	}
	s = dialogue(t, filepath.Join(f.up, "nope"), "list\n", gitServer())
	if s.code != 128 || !strings.Contains(s.err, "fatal: repository '"+filepath.Join(f.up, "nope")+"' not found") {
		t.Errorf("missing: exit %d, %q", s.code, s.err)
	}
}

// TestListEmptyAndSHA256: an empty upstream lists nothing (and can be
// cloned); a SHA-256 upstream's list says so first, when git asks, as
// transport-helper.c reads it, and gives its 64-digit ids.
func TestListEmptyAndSHA256(t *testing.T) {
	env := sealed(t, "")
	empty := gittest.Init(t, env, true, "")
	s := dialogue(t, empty, "option object-format true\nlist\n", gitServer())
	if s.code != 0 || s.out != "ok\n:object-format sha1\n\n" {
		t.Errorf("empty: %+v", s)
	}
	sha256 := gittest.Init(t, env, true, "sha256")
	gittest.History(t, env, sha256, 2, 2)
	main := strings.TrimSpace(gittest.Git(t, env, sha256, "rev-parse", "main"))
	for name, tr := range map[string]stream.Connector{"exec": gitServer(), "go-git file": nil} {
		s = dialogue(t, sha256, "option object-format true\nlist\n", tr)
		if s.code != 0 || !strings.HasPrefix(s.out, "ok\n:object-format sha256\n@refs/heads/main HEAD\n"+main+" refs/heads/main\n") {
			t.Errorf("sha256 through %s: %+v", name, s)
		}
		if s = dialogue(t, sha256, "list\n", tr); s.code != 0 || strings.Contains(s.out, ":object-format") {
			t.Errorf("sha256 through %s, no option: %+v", name, s)
		}
	}
}
