package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestHostileRefNameCannotAnswerForTheHelper: an upstream whose ref name
// carries "\n\n", "ok" lines and "lock <victim>" would, printed verbatim
// by list, end the list, answer git's options and then its fetch with a
// lock file that git unlinks when the fetch ends. Plain git ignores the
// funny ref; so must the helper, and the victim outside the repository
// must survive a mirror fetch. It is the first ref (go-git refuses a
// space in later ones) and sorts after every real ref, so that the list
// git reads is complete and the fetch goes ahead.
func TestHostileRefNameCannotAnswerForTheHelper(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 2, "v9")
	for _, side := range hostileSides {
		t.Run(side.name, func(t *testing.T) {
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			name := "refs/zzz\n\n" + strings.Repeat("ok\n", 40) + "lock " + victim
			d := startHostile(t, env, up, lie{adv: renameFirst(name)})
			dst := filepath.Join(t.TempDir(), "m.git")
			gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
			c := gittest.Exec(t, env, dst, nil, "git", "fetch", side.prefix+d.url, "+refs/*:refs/*")
			if _, err := os.Stat(victim); err != nil {
				t.Fatalf("the victim file is gone after the fetch (exit %d): %v\n%s", c.Code, err, c.Stderr)
			}
			if side.name == "durable" {
				mustRun(t, c, "durable fetch")
				if !strings.Contains(string(c.Stderr), "warning: ignoring funny ref 'refs/zzz??ok?ok?") {
					t.Errorf("no warning of the funny ref:\n%s", c.Stderr)
				}
				if got, want := refs(t, env, dst), refs(t, env, up); got != want {
					t.Errorf("refs of the mirror:\n%s\nupstream:\n%s", got, want)
				}
			}
		})
	}
}

// TestHostileRefNameCannotPrune: a blank line injected through a ref name
// would end the list early, and git fetch --prune would delete every
// branch listed after it. Refs must be the same before and after, as with
// plain git.
func TestHostileRefNameCannotPrune(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	for _, side := range hostileSides {
		t.Run(side.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "m.git")
			gittest.Git(t, env, base, "clone", "-q", "--mirror", up, dst)
			gittest.Git(t, env, dst, "config", "remote.origin.url", side.prefix+startHostile(t, env, up,
				lie{adv: renameFirst("refs/heads/0\n")}).url)
			before := refs(t, env, dst)
			c := gittest.Exec(t, env, dst, nil, "git", "fetch", "--prune", "origin")
			if after := refs(t, env, dst); after != before {
				t.Fatalf("refs changed (exit %d):\nbefore:\n%s\nafter:\n%s\n%s", c.Code, before, after, c.Stderr)
			}
			if side.name == "durable" {
				mustRun(t, c, "durable fetch")
			}
		})
	}
}

// TestHostileErrLine: an ERR packet with terminal escapes is shown as git
// shows it, control characters replaced by '?', and the fetch fails with
// git's exit code.
func TestHostileErrLine(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	d := startHostile(t, env, up, lie{adv: func([]string) []string {
		return []string{"ERR \x1b[2Jno\x07 such \x1b]0;title\x07repo\n"}
	}})
	var last [2]string
	var codes [2]int
	for i, side := range hostileSides {
		c := gittest.Exec(t, env, base, nil, "git", "ls-remote", side.prefix+d.url)
		r := result{Cmd: c}
		last[i], codes[i] = r.lastLine(), c.Code
		if strings.ContainsRune(string(c.Stderr), 0x1b) || strings.ContainsRune(string(c.Stderr), 0x07) {
			t.Errorf("%s: stderr carries control characters: %q", side.name, c.Stderr)
		}
	}
	if last[0] != last[1] || codes[0] != codes[1] {
		t.Errorf("git: exit %d %q\nours: exit %d %q", codes[0], last[0], codes[1], last[1])
	}
}

// TestHostileSideband: progress text from the upstream has its control
// characters masked in caret notation (newer git's sideband.c; colour is
// kept), and a channel-3 error fails the fetch even after a complete pack,
// leaving the refs as they were, as plain git does.
func TestHostileSideband(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 3, "v9")

	t.Run("progress", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "m.git")
		gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
		d := startHostile(t, env, up, lie{resp: onPack("\x02\x1b]0;owned\x07\x1b[2J\x1b[31mred\x1b[m\n", false)})
		c := gittest.Exec(t, env, dst, nil, "git", "fetch", "--progress", "durable::"+d.url, "+refs/*:refs/*")
		mustRun(t, c, "fetch")
		errs := string(c.Stderr)
		if !strings.Contains(errs, "remote: ^[]0;owned^G^[[2J\x1b[31mred\x1b[m") {
			t.Errorf("the upstream's message is not masked as git masks it:\n%q", errs)
		}
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(errs, "\x1b[31m", ""), "\x1b[m", ""), "\x1b]") {
			t.Errorf("an escape sequence reached the terminal:\n%q", errs)
		}
	})
	for _, side := range hostileSides {
		t.Run("channel 3 after the pack/"+side.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "m.git")
			gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
			d := startHostile(t, env, up, lie{resp: onPack("\x03access \x1b[2Jdenied\n", true)})
			before := refs(t, env, dst)
			c := gittest.Exec(t, env, dst, nil, "git", "fetch", side.prefix+d.url, "+refs/*:refs/*")
			if c.Code == 0 {
				t.Fatalf("the fetch succeeded despite a channel-3 error:\n%s", c.Stderr)
			}
			if after := refs(t, env, dst); after != before {
				t.Errorf("refs changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if !strings.Contains(string(c.Stderr), "access ") || !strings.Contains(string(c.Stderr), "denied") {
				t.Errorf("the upstream's message is not shown:\n%s", c.Stderr)
			}
			if side.name == "durable" && strings.ContainsRune(string(c.Stderr), 0x1b) {
				t.Errorf("stderr carries an escape: %q", c.Stderr)
			}
		})
	}
}
