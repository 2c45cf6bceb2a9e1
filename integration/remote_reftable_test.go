package integration

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// syncedPaths are the paths a trace's sync_file_range, fsync and
// fdatasync calls that succeeded were made on.
func syncedPaths(t *testing.T, trace string) map[string]bool {
	t.Helper()
	fdPath := regexp.MustCompile(`^\d+<(.*)>$`)
	out := map[string]bool{}
	for _, c := range readTrace(t, trace) {
		switch c.Name {
		case "sync_file_range", "fsync", "fdatasync":
			if m := fdPath.FindStringSubmatch(c.Args[0]); m != nil && c.OK() {
				out[m[1]] = true
			}
		}
	}
	return out
}

// TestRemoteReftableSettle: a clone and a fetch into a mirror whose refs
// are in reftable (git 2.45 and later) make durable, as the session ends,
// what git wrote there: every table tables.list names that the session
// wrote, tables.list and the reftable directory — as they make loose refs
// and packed-refs durable in a files mirror — and --check says so of the
// reftable backend. (Before: no sync under reftable/, and --check said
// "refs … made durable" all the same.)
func TestRemoteReftableSettle(t *testing.T) {
	env := newGitEnv(t, 2, 45)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	m := filepath.Join(base, "m.git")
	table := filepath.Join(m, "reftable")
	for i, args := range [][]string{
		{"clone", "-q", "--mirror", "--ref-format=reftable", "durable::file://" + up, m},
		{"-C", m, "fetch", "-q"},
	} {
		if i == 1 {
			advance(t, env, up, 2, "v9")
		}
		senv, trace := underStrace(t, env)
		// underStrace's PATH, with the new git after the built binaries.
		senv = append(senv, "PATH="+filepath.Dir(trace)+string(os.PathListSeparator)+pathOf(env))
		began := time.Now().Add(-time.Second)
		mustRun(t, gittest.Exec(t, senv, base, nil, "git", args...), args[0])
		synced := syncedPaths(t, trace)
		list, err := os.ReadFile(filepath.Join(table, "tables.list"))
		if err != nil {
			t.Fatal(err)
		}
		var missed []string
		for _, name := range strings.Fields(string(list)) {
			st, err := os.Stat(filepath.Join(table, name))
			if err != nil {
				t.Fatalf("%s names %s: %v", "tables.list", name, err)
			}
			if (i == 0 || st.ModTime().After(began)) && !synced[filepath.Join(table, name)] {
				missed = append(missed, name)
			}
		}
		if len(missed) > 0 || !synced[filepath.Join(table, "tables.list")] || !synced[table] {
			var got []string
			for p := range synced {
				got = append(got, p)
			}
			t.Errorf("%s: tables not synced %v; tables.list synced %v, reftable/ %v; synced: %v",
				args[0], missed, synced[filepath.Join(table, "tables.list")], synced[table], got)
		}
		if n := strings.TrimSpace(gittest.Git(t, env, m, "for-each-ref", "--count=1", "--format=%(refname)", "refs/tags/v9")); i == 1 && n != "refs/tags/v9" {
			t.Errorf("after the fetch: refs/tags/v9 is %q", n)
		}
	}
	c := gittest.Exec(t, env, m, nil, filepath.Join(binDir, "git-remote-durable"), "--check")
	if !strings.Contains(string(c.Stdout)+string(c.Stderr), "reftable: the new tables, tables.list and its directory") {
		t.Errorf("--check of a reftable mirror does not say what it makes durable:\n%s%s", c.Stdout, c.Stderr)
	}
}

// pathOf is the last PATH an environment list sets.
func pathOf(env []string) string {
	p := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			p = v
		}
	}
	return p
}

// TestRemoteReftableProcesses: a fetch into a mirror whose refs are in
// reftable starts no more processes than the same fetch into a files
// mirror (the helper finds the repository and reads the refs itself,
// without git rev-parse or git for-each-ref), and sends the same haves.
// (Before: 12 processes against 8.)
func TestRemoteReftableProcesses(t *testing.T) {
	env := newGitEnv(t, 2, 45)
	strace, err := osexec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed: ", err)
	}
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	files, table := filepath.Join(base, "files.git"), filepath.Join(base, "table.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, files)
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "--ref-format=reftable", "durable::file://"+up, table)
	advance(t, env, up, 2, "p1")
	var execs [2][]string
	var haves [2]string
	for i, m := range []string{files, table} {
		trace, packets := filepath.Join(base, "execve"+strconv.Itoa(i)), filepath.Join(base, "packets"+strconv.Itoa(i))
		c := gittest.Exec(t, append(env, "GIT_TRACE_PACKET="+packets), m, nil, strace, "-f", "-qq", "-e", "trace=execve", "-e", "signal=none", "-o", trace, "git", "fetch", "-q")
		mustRun(t, c, "fetch under strace")
		for _, l := range strings.Split(string(readFile(t, trace)), "\n") {
			if at := strings.Index(l, "execve("); at >= 0 && !strings.Contains(l, "ENOENT") {
				f := strings.Fields(l[at:])
				execs[i] = append(execs[i], strings.Join(f[1:min(len(f), 4)], " "))
			}
		}
		var hs []string
		for _, l := range packetLines(t, packets, "durable") {
			if strings.HasPrefix(l, "> have ") {
				hs = append(hs, l)
			}
		}
		sort.Strings(hs)
		haves[i] = strings.Join(hs, "\n")
	}
	if len(execs[1]) > len(execs[0]) || len(execs[0]) == 0 {
		t.Errorf("processes of a fetch into a reftable mirror: %d\n%s\ninto a files mirror: %d\n%s",
			len(execs[1]), strings.Join(execs[1], "\n"), len(execs[0]), strings.Join(execs[0], "\n"))
	}
	if haves[0] != haves[1] || haves[0] == "" {
		t.Errorf("haves into a files mirror\n%s\ninto a reftable mirror\n%s", haves[0], haves[1])
	}
	if a, b := refs(t, env, files), refs(t, env, table); a != b {
		t.Errorf("refs of the files mirror\n%s\nof the reftable mirror\n%s", a, b)
	}
}

// TestRemoteReftableSHA256: a SHA-256 upstream cloned as a reftable mirror
// through the helper, then fetched into (git 2.45 and later): the refs
// are the upstream's, as plain git's mirror of it has them, the session
// settles the tables, and git fsck is clean.
func TestRemoteReftableSHA256(t *testing.T) {
	env := newGitEnv(t, 2, 45)
	base := t.TempDir()
	up := newUpstreamOf(t, env, base, "up.git", "sha256", 4, 6)
	ours, theirs := filepath.Join(base, "ours.git"), filepath.Join(base, "theirs.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "--ref-format=reftable", "durable::file://"+up, ours)
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "--ref-format=reftable", "file://"+up, theirs)
	advance(t, env, up, 2, "s1")
	c, _ := durable(t, env, ours, "fetch", "-q")
	mustRun(t, c, "fetch")
	gittest.Git(t, env, theirs, "fetch", "-q")
	if a, b := refs(t, env, ours), refs(t, env, theirs); a != b || !strings.Contains(a, "refs/tags/s1") {
		t.Errorf("refs through the helper\n%s\nplain git's\n%s", a, b)
	}
	if f := strings.TrimSpace(gittest.Git(t, env, ours, "rev-parse", "--show-object-format", "--show-ref-format")); f != "sha256\nreftable" {
		t.Errorf("formats %q", f)
	}
	gittest.Fsck(t, env, ours)
}
