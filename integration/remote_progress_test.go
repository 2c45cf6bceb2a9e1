package integration

import (
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
