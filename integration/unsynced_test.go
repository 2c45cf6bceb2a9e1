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

// TestRemoteDurableUnlessTurnedOff: through durable::, objects are synced
// unless the configuration turns them off by name. core.fsyncMethod=batch
// alone (which git reads as "loose objects unsynced"), a misspelled method
// or component — each is read as batch, said once in the session on one
// line that names what was ignored, and in the stats ("settings"), the
// objects written out with one flush; git's own warnings about the typo
// are git's. core.fsync=none and -loose-object turn the sync off, silently.
func TestRemoteDurableUnlessTurnedOff(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	for _, tc := range []struct {
		config []string
		method string
		notice string
	}{
		{[]string{"core.fsyncMethod=batch"}, "batch", "git's own reading of these settings leaves loose objects unsynced"},
		{[]string{"core.fsyncMethod=bathc"}, "batch", "ignored the unknown core.fsyncMethod value 'bathc'"},
		{[]string{"core.fsync=comitted"}, "batch", "ignored the unknown core.fsync component 'comitted'"},
		{[]string{"core.fsync=comitted,loose-object", "core.fsyncMethod=fsync"}, "fsync", "ignored the unknown core.fsync component 'comitted'"},
		{[]string{"core.fsync=committed"}, "batch", ""},
		{[]string{"core.fsync=none"}, "none", ""},
		{[]string{"core.fsync=-loose-object", "core.fsyncMethod=batch"}, "none", ""},
	} {
		t.Run(strings.Join(tc.config, ","), func(t *testing.T) {
			var args []string
			for _, kv := range tc.config {
				args = append(args, "-c", kv)
			}
			// Loose objects, whose sync the settings decide.
			args = append(args, "-c", "fetch.unpackLimit=100000")
			dir := filepath.Join(t.TempDir(), "clone")
			c, stats := durable(t, env, base, append(args, "clone", "-q", "--mirror", "durable::"+up, dir)...)
			mustRun(t, c, "clone")
			var notices []string
			for _, l := range strings.Split(string(c.Stderr), "\n") {
				if strings.HasPrefix(l, "warning: durable: ") {
					notices = append(notices, l)
				}
			}
			if w, _ := warningLines(c.Stderr); len(w) > 0 {
				t.Errorf("the unsynced warning of git's reading: %q", w)
			}
			switch {
			case tc.notice == "" && len(notices) > 0:
				t.Errorf("a notice where the settings say what they mean: %q", notices)
			case tc.notice != "" && (len(notices) != 1 || !strings.Contains(notices[0], "objects are synced with "+tc.method) || !strings.Contains(notices[0], tc.notice)):
				t.Errorf("want one line saying %q; got %q\n%s", tc.notice, notices, c.Stderr)
			}
			if len(stats) == 0 {
				t.Fatal("no fetch batch")
			}
			for _, s := range stats {
				if s.Method != tc.method || tc.notice != "" && !strings.Contains(s.Settings, tc.notice) || tc.notice == "" && s.Settings != "" {
					t.Errorf("stats: method %q, settings %q; want %s and %q", s.Method, s.Settings, tc.method, tc.notice)
				}
				if tc.method == "batch" && (s.HardwareFlush != 1 || s.WriteoutOnly != int64(s.Written)) {
					t.Errorf("batch %d: %d writeouts for %d objects, %d flushes", s.Batch, s.WriteoutOnly, s.Written, s.HardwareFlush)
				}
			}
			gittest.Fsck(t, env, dir)
		})
	}
}
