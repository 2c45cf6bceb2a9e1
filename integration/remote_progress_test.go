package integration

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// progressLast is the last state of each progress line of stderr
// ("Receiving objects: 100% (12/12), 1.20 KiB | 1.20 MiB/s, done."), by
// its title, with the counts alone ("100% (12/12)") and whether it ended
// with ", done.".
func progressLast(stderr string) map[string]string {
	re := regexp.MustCompile(`^(remote: )?([A-Z][a-z]+ [a-z]+): +(\d+% \(\d+/\d+\))(.*)$`)
	out := map[string]string{}
	for _, l := range strings.FieldsFunc(stderr, func(r rune) bool { return r == '\r' || r == '\n' }) {
		if m := re.FindStringSubmatch(l); m != nil && m[1] == "" {
			out[m[2]] = m[3] + map[bool]string{true: " done", false: ""}[strings.HasSuffix(m[4], ", done.")]
		}
	}
	return out
}

// TestRemoteProgressKept: a clone whose pack is kept says, as git's
// index-pack says it, "Receiving objects" with the pack's objects and
// "Resolving deltas" with its deltas, each ending ", done." — the same
// counts as plain git's clone of the same upstream; a fetch exploded into
// loose objects says "Unpacking objects", as git's unpack-objects.
// (Before: "Unpacking objects" for a kept pack too.)
func TestRemoteProgressKept(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	var lines [2]map[string]string
	for i, side := range hostileSides {
		dst := filepath.Join(base, side.name+".git")
		c := gittest.Exec(t, env, base, nil, "git", "-c", "fetch.unpackLimit=1", "clone", "--progress", "--mirror", side.prefix+"file://"+up, dst)
		mustRun(t, c, side.name+" clone")
		lines[i] = progressLast(string(c.Stderr))
	}
	for _, title := range []string{"Receiving objects", "Resolving deltas"} {
		git, ours := lines[0][title], lines[1][title]
		if git == "" || ours != git || !strings.HasSuffix(ours, " done") {
			t.Errorf("%s: ours %q, git's %q", title, ours, git)
		}
	}
	if _, ok := lines[1]["Unpacking objects"]; ok {
		t.Errorf("a kept pack's clone says Unpacking objects: %v", lines[1])
	}

	advance(t, env, up, 1, "p1")
	c := gittest.Exec(t, env, filepath.Join(base, "durable.git"), nil, "git", "fetch", "--progress")
	mustRun(t, c, "fetch")
	if l := progressLast(string(c.Stderr)); !strings.HasSuffix(l["Unpacking objects"], " done") || l["Receiving objects"] != "" {
		t.Errorf("an exploded fetch: %v\n%s", l, c.Stderr)
	}
}

// TestRemoteVerboseDurable: git fetch -v through the helper ends with one
// line that says what was made durable — the objects, the files of the
// repository, the filesystem and the flushes — and, where the settings
// turn syncing off (core.fsync=none), that nothing was and why; without
// -v, no such line. (Before: a line per batch and another for the
// repository's files, none naming the filesystem, and the same "durable:"
// words where nothing was synced.)
func TestRemoteVerboseDurable(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	m := filepath.Join(base, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, m)
	durableLines := func(stderr []byte) []string {
		var out []string
		for _, l := range strings.Split(string(stderr), "\n") {
			if strings.HasPrefix(l, "durable:") {
				out = append(out, l)
			}
		}
		return out
	}
	for i, tc := range []struct {
		args []string
		want *regexp.Regexp
	}{
		{[]string{"fetch", "-v"}, regexp.MustCompile(`^durable: [1-9]\d* objects \([1-9]\d* written, 0 present, 0 repaired\) and [1-9]\d* files of the repository made durable on \S.* \((batch|fallback-fsync|fsync): writeout-only \d+, hardware-flush [1-9]\d*\)(; checked \d+ loose objects in \S+ s for what a crash broke, 0 broken)?$`)},
		{[]string{"-c", "core.fsync=none", "fetch", "-v"}, regexp.MustCompile(`^durable: not made durable: [1-9]\d* objects and 0 files of the repository written, none: no sync at all`)},
		{[]string{"fetch"}, nil},
	} {
		advance(t, env, up, 1, fmt.Sprintf("vd%d", i))
		c := gittest.Exec(t, env, m, nil, "git", tc.args...)
		mustRun(t, c, strings.Join(tc.args, " "))
		lines := durableLines(c.Stderr)
		lastLine := strings.TrimSpace(string(c.Stderr))
		lastLine = lastLine[strings.LastIndexByte(lastLine, '\n')+1:]
		switch {
		case tc.want == nil && len(lines) != 0:
			t.Errorf("%v: %q", tc.args, lines)
		case tc.want != nil && (len(lines) != 1 || !tc.want.MatchString(lines[0]) || lastLine != lines[0]):
			t.Errorf("%v: %q, the last line %q\n%s", tc.args, lines, lastLine, c.Stderr)
		}
	}
}
