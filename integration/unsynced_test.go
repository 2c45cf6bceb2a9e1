package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// unsyncedCase is a configuration and what git-unpack-durable must say
// about it: the cause on the warning line ("" for silence) and the method
// its stats report.
type unsyncedCase struct {
	config []string // "key=value", written with git config in scope
	scope  string   // "command" (git -c), "global" or "local"
	cause  string
	method string
}

var unsyncedCases = []unsyncedCase{
	{nil, "command", "", "batch"},
	{[]string{"core.fsyncMethod=batch"}, "command", "core.fsyncMethod=batch is set but core.fsync is not, and git's default core.fsync leaves out loose-object", "none"},
	{[]string{"core.fsyncMethod=batch"}, "global", "core.fsyncMethod=batch is set but core.fsync is not, and git's default core.fsync leaves out loose-object", "none"},
	{[]string{"core.fsyncMethod=fsync"}, "local", "core.fsyncMethod=fsync is set but core.fsync is not, and git's default core.fsync leaves out loose-object", "none"},
	{[]string{"core.fsyncObjectFiles=false"}, "global", "core.fsyncObjectFiles=false is set but core.fsync is not, and git's default core.fsync leaves out loose-object", "none"},
	{[]string{"core.fsync=reference"}, "global", "core.fsync=reference does not name loose-object", "none"},
	{[]string{"core.fsync=reference"}, "local", "core.fsync=reference does not name loose-object", "none"},
	{[]string{"core.fsyncMethod=Batch"}, "global", "core.fsyncMethod=Batch is set but core.fsync is not, and git's default core.fsync leaves out loose-object", "none"},
	{[]string{"core.fsync=none"}, "global", "", "none"},
	{[]string{"core.fsync=-loose-object", "core.fsyncMethod=batch"}, "global", "", "none"},
	{[]string{"core.fsync=committed", "core.fsyncMethod=batch"}, "global", "", "batch"},
}

// configure writes the case's settings in its scope and returns the
// arguments to put before git's command.
func (tc unsyncedCase) configure(t *testing.T, env []string, repo string) []string {
	var args []string
	for _, kv := range tc.config {
		k, v, _ := strings.Cut(kv, "=")
		switch tc.scope {
		case "command":
			args = append(args, "-c", kv)
		case "global":
			gittest.Git(t, env, repo, "config", "--global", k, v)
		default:
			gittest.Git(t, env, repo, "config", k, v)
		}
	}
	return args
}

// warningLines returns the lines of stderr that say loose objects go
// unsynced, with the hint after each.
func warningLines(stderr []byte) (warnings, hints []string) {
	lines := strings.Split(string(stderr), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "warning: loose objects are written without any sync") {
			warnings = append(warnings, l)
			if i+1 < len(lines) {
				hints = append(hints, lines[i+1])
			}
		}
	}
	return warnings, hints
}

// TestUnsyncedWarned runs git-unpack-durable under configurations that
// leave loose objects without any sync by git's reading, and under ones
// that do not or that ask for it by name: the first must say so once —
// which setting, and the command that turns the sync on — and report
// "method":"none" with that reason; the others must be silent. The
// command the hint gives is then run as printed, and must make the next
// unpack sync.
func TestUnsyncedWarned(t *testing.T) {
	env0 := env(t)
	src := gittest.Init(t, env0, false, "")
	gittest.History(t, env0, src, 4, 3)
	pack := packOf(t, env0, src, "main\n", "--revs")
	for _, tc := range unsyncedCases {
		t.Run(tc.scope+"/"+strings.Join(tc.config, ","), func(t *testing.T) {
			env := env(t)
			repo := gittest.Init(t, env, true, "")
			args := tc.configure(t, env, repo)
			c := gittest.Exec(t, env, repo, pack, "git", append(args, "unpack-durable", "--stats")...)
			if c.Code != 0 {
				t.Fatalf("exit %d\n%s", c.Code, c.Stderr)
			}
			st := statsLine(t, c.Stderr)
			warnings, hints := warningLines(c.Stderr)
			if st["method"] != tc.method {
				t.Errorf("method %v, want %s", st["method"], tc.method)
			}
			if tc.cause == "" {
				if len(warnings) != 0 || st["reason"] != nil {
					t.Fatalf("a warning where the configuration asks for it:\n%s", c.Stderr)
				}
				return
			}
			want := "warning: loose objects are written without any sync: " + tc.cause
			if len(warnings) != 1 || warnings[0] != want || st["reason"] != tc.cause {
				t.Fatalf("want once %q and the reason in the stats; got\n%s", want, c.Stderr)
			}
			if strings.HasSuffix(tc.config[0], "=Batch") && !strings.Contains(string(c.Stderr), "warning: ignoring unknown core.fsyncMethod value 'Batch'\n") {
				t.Errorf("git's own warning about the typo is missing:\n%s", c.Stderr)
			}
			fix, ok := strings.CutPrefix(hints[0], "hint: to sync them: ")
			if !ok {
				t.Fatalf("no hint after the warning:\n%s", c.Stderr)
			}
			if tc.scope == "command" {
				// git -c: the fix goes on the command line.
				v, ok := strings.CutPrefix(fix, "run git with -c ")
				if !ok {
					t.Fatalf("hint %q for a -c setting", fix)
				}
				args = append(args, "-c", v)
			} else {
				gittest.Exec(t, env, t.TempDir(), nil, "sh", "-c", fix)
			}
			again := gittest.Init(t, env, true, "")
			if tc.scope == "local" {
				// The fix is in this repository's config: unpack into
				// it again, without the objects of the first run.
				again = repo
				dirs, _ := filepath.Glob(filepath.Join(repo, "objects", "??"))
				for _, d := range dirs {
					if err := os.RemoveAll(d); err != nil {
						t.Fatal(err)
					}
				}
			}
			c = gittest.Exec(t, env, again, pack, "git", append(args, "unpack-durable", "--stats")...)
			st = statsLine(t, c.Stderr)
			if warnings, _ := warningLines(c.Stderr); c.Code != 0 || len(warnings) != 0 || st["method"] == "none" || st["hardware-flush"] == 0.0 {
				t.Fatalf("after %q: exit %d, stats %v\n%s", fix, c.Code, st, c.Stderr)
			}
		})
	}
}

// TestRemoteUnsyncedWarned clones through the helper with
// core.fsyncMethod=batch alone: the warning comes once in the session, the
// stats file says "method":"none" and why; a pack kept (fetch.unpackLimit)
// is synced all the same, as git syncs the packs it writes by default.
func TestRemoteUnsyncedWarned(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	cause := "core.fsyncMethod=batch is set but core.fsync is not, and git's default core.fsync leaves out loose-object"
	for _, keep := range []bool{false, true} {
		args := []string{"-c", "core.fsyncMethod=batch"}
		if keep {
			args = append(args, "-c", "fetch.unpackLimit=1")
		}
		dir := filepath.Join(t.TempDir(), "clone")
		c, stats := durable(t, env, base, append(args, "clone", "-q", "durable::"+up, dir)...)
		mustRun(t, c, "clone")
		warnings, hints := warningLines(c.Stderr)
		if len(stats) == 0 {
			t.Fatal("no fetch batch")
		}
		if len(warnings) != 1 || warnings[0] != "warning: loose objects are written without any sync: "+cause ||
			hints[0] != "hint: to sync them: run git with -c core.fsync=loose-object" {
			t.Errorf("keep=%v: want the warning and its hint once, got\n%s", keep, c.Stderr)
		}
		for _, s := range stats {
			switch {
			case keep && (s.Pack == "" || s.Method != "batch" || s.HardwareFlush != 1):
				t.Errorf("kept pack %q synced by %s (%d flushes), want batch and 1 flush", s.Pack, s.Method, s.HardwareFlush)
			case !keep && (s.Method != "none" || s.Reason != cause):
				t.Errorf("batch %d: method %q, reason %q; want none and %q", s.Batch, s.Method, s.Reason, cause)
			}
		}
		gittest.Fsck(t, env, dir)
	}
}
