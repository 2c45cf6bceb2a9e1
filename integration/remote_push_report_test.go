package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// reportFixture is an upstream whose pre-receive hook refuses every push
// (its refs never move, whatever a report says), and two clones of it: one
// through durable::, one by plain git, the oracle.
type reportFixture struct {
	env               []string
	dir, ours, theirs string
	commits           int
}

func newReportFixture(t *testing.T) *reportFixture {
	t.Helper()
	env := env(t)
	base := t.TempDir()
	dir := newUpstream(t, env, base, "up.git")
	hook := filepath.Join(dir, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := &reportFixture{env: env, dir: dir, ours: filepath.Join(base, "ours"), theirs: filepath.Join(base, "theirs")}
	c, _ := durable(t, env, "", "clone", "-q", "durable::file://"+dir, f.ours)
	mustRun(t, c, "clone")
	gittest.Git(t, env, "", "clone", "-q", "file://"+dir, f.theirs)
	return f
}

// pushed is one git push of a new commit on main to url from repo.
type pushed struct {
	*gittest.Cmd
	moved bool // refs/remotes/origin/main changed
}

// push commits on main in repo, points origin at url and pushes main.
func (f *reportFixture) push(t *testing.T, repo, url string) pushed {
	t.Helper()
	f.commits++
	env := gittest.Tick(f.env, 3000+f.commits)
	gittest.Git(t, env, repo, "remote", "set-url", "origin", url)
	gittest.WriteFile(t, repo, "pushed.txt", fmt.Sprintf("change %d\n", f.commits))
	gittest.Git(t, env, repo, "add", "pushed.txt")
	gittest.Git(t, env, repo, "commit", "-q", "-m", "a change")
	before := gittest.Git(t, env, repo, "rev-parse", "refs/remotes/origin/main")
	c := gittest.Exec(t, env, repo, nil, "git", "push", "origin", "main")
	return pushed{Cmd: c, moved: gittest.Git(t, env, repo, "rev-parse", "refs/remotes/origin/main") != before}
}

// TestRemotePushReport pushes through a git:// server that runs the real
// receive-pack (whose hook refuses) and replaces its report, with plain
// git pushing to the same server as the oracle: a refusal is a refusal
// with the server's words, whatever they are — never git's own "up to
// date" success — the tracking ref stays, lines about refs nobody pushed
// are warnings in git's words, and a malformed report fails the push with
// the words git prints for it.
func TestRemotePushReport(t *testing.T) {
	f := newReportFixture(t)
	upMain := gittest.Git(t, f.env, f.dir, "rev-parse", "main")
	ng := func(lines ...string) func([]string, func(string)) {
		return func(real []string, emit func(string)) {
			emit(real[0])
			for _, l := range lines {
				emit(l)
			}
		}
	}
	type row struct {
		name   string
		report func([]string, func(string))
		git    string // a line of plain git's stderr, also in ours unless ours is set
		ours   string
		crash  bool // git 2.39 prints its line, then aborts (it frees the constant "failed")
	}
	var rows []row
	for _, why := range []string{"up to date", "ok", "non-fast forward", "fetch first", "needs force", "already exists",
		"stale info", "no match", "forced update", "expecting report", "remote ref updated since checkout"} {
		ours := "! [remote rejected] main -> main (" + why + ")"
		if why != "ok" {
			ours = "! [remote rejected] main -> main (\"" + why + "\")" // git's own status words, quoted
		}
		rows = append(rows, row{name: "ng " + why, report: ng("ng refs/heads/main " + why), git: "! [remote rejected] main -> main (" + why + ")", ours: ours})
	}
	rows = append(rows,
		row{name: "real report", git: "! [remote rejected] main -> main (pre-receive hook declined)"},
		row{name: "ng without reason", report: ng("ng refs/heads/main"), git: "! [remote rejected] main -> main (failed)", crash: true},
		row{name: "unknown ref", report: ng("ok refs/heads/nobody-pushed", "ng refs/heads/main hook says no"),
			git: "warning: remote reported status on unknown ref: refs/heads/nobody-pushed"},
		row{name: "unexpected ref", report: ng("ng refs/heads/main hook says no", "ok refs/heads/side"),
			git: "warning: remote reported status on unexpected ref: refs/heads/side"},
		row{name: "no status for main", report: ng("ok refs/heads/nobody-pushed"),
			git: "! [remote failure]  main -> main (remote failed to report status)"},
		row{name: "bad unpack line", report: func(_ []string, emit func(string)) { emit("unpacked ok") },
			git: "error: unable to parse remote unpack status: unpacked ok", ours: "fatal: unable to parse remote unpack status: unpacked ok"},
		row{name: "status line without a space", report: ng("ng"),
			git: "error: invalid status line from remote: ng", ours: "fatal: invalid status line from remote: ng"},
		row{name: "unknown status", report: ng("maybe refs/heads/main"),
			git: "error: invalid ref status from remote: maybe", ours: "fatal: invalid ref status from remote: maybe"},
		row{name: "option after ng", report: ng("ng refs/heads/main no", "option refname refs/heads/main"),
			git: "error: 'option' without a matching 'ok/ng' directive", ours: "fatal: 'option' without a matching 'ok/ng' directive"},
	)
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			d := startHostile(t, f.env, f.dir, lie{report: r.report})
			web := startHTTP(t, reportRewriter{next: httpBackend(t, f.env, filepath.Dir(f.dir)), report: r.report}) + "/up.git"
			theirs := f.push(t, f.theirs, d.url)
			if (theirs.Code != 1 && !r.crash) || !strings.Contains(string(theirs.Stderr), r.git+"\n") || theirs.moved {
				t.Fatalf("plain git: exit %d, tracking ref moved %v, want 1 and %q:\n%s", theirs.Code, theirs.moved, r.git, theirs.Stderr)
			}
			want := r.ours
			if want == "" {
				want = r.git
			}
			for _, url := range []string{d.url, web} {
				ours := f.push(t, f.ours, "durable::"+url)
				if ours.Code != 1 || !strings.Contains(string(ours.Stderr), want+"\n") {
					t.Errorf("through durable::%s: exit %d, want 1 and %q:\n%s", url, ours.Code, want, ours.Stderr)
				}
				if ours.moved {
					t.Errorf("through durable::%s, refs/remotes/origin/main moved to a refused commit:\n%s", url, ours.Stderr)
				}
			}
			if got := gittest.Git(t, f.env, f.dir, "rev-parse", "main"); got != upMain {
				t.Fatal("the upstream's main moved")
			}
		})
	}
}

// TestRemotePushMillionLineReport: a report of 1,000,000 lines about refs
// nobody pushed is read in bounded memory (the helper's peak RSS, measured
// by the rusage tool, under 64 MiB), warned about in git's words ten times
// and counted, and the refusal of main still comes through; plain git
// (which prints every warning) exits the same way.
func TestRemotePushMillionLineReport(t *testing.T) {
	if testing.Short() {
		t.Skip("a million lines")
	}
	const n = 1000000
	f := newReportFixture(t)
	report := func(real []string, emit func(string)) {
		emit(real[0])
		for i := 0; i < n; i++ {
			emit(fmt.Sprintf("ng refs/heads/nobody%07d not yours", i))
		}
		emit(real[1])
	}
	d := startHostile(t, f.env, f.dir, lie{report: report})
	web := startHTTP(t, reportRewriter{next: httpBackend(t, f.env, filepath.Dir(f.dir)), report: report}) + "/up.git"
	tool := rusageTool(t, t.TempDir())
	wrap := t.TempDir()
	measure := filepath.Join(wrap, "maxrss")
	script := "#!/bin/sh\nexec " + tool + " " + measure + " " + filepath.Join(binDir, "git-remote-durable") + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(wrap, "git-remote-durable"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.env = append(f.env, "PATH="+wrap+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))

	theirs := f.push(t, f.theirs, d.url) // a million warnings on stderr
	refused := "! [remote rejected] main -> main (pre-receive hook declined)\n"
	if theirs.Code != 1 || !strings.Contains(string(theirs.Stderr), refused) || theirs.moved {
		t.Fatalf("plain git: exit %d, moved %v\n%.2000s", theirs.Code, theirs.moved, theirs.Stderr)
	}
	for _, url := range []string{d.url, web} {
		ours := f.push(t, f.ours, "durable::"+url)
		stderr := string(ours.Stderr)
		if ours.Code != 1 || !strings.Contains(stderr, refused) || ours.moved ||
			strings.Count(stderr, "warning: remote reported status on unknown ref: refs/heads/nobody") != 10 ||
			!strings.Contains(stderr, fmt.Sprintf("warning: remote reported status on %d more refs that were not pushed\n", n-10)) {
			t.Fatalf("through durable::%s: exit %d, moved %v:\n%.4000s", url, ours.Code, ours.moved, stderr)
		}
		rss := readRSS(t, measure, stderr)
		t.Logf("%s: helper peak RSS reading a report of %d lines: %d MiB", url, n+2, rss>>20)
		if rss > 64<<20 {
			t.Errorf("%s: helper peak RSS %d MiB reading a report of %d lines, want at most 64 MiB", url, rss>>20, n+2)
		}
	}
}
