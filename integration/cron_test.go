//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestCronMirror follows the README's set-up of a mirror as a user does:
// make install (a PREFIX that, like /usr/local, is not on cron's PATH),
// git clone --mirror durable::<url> from the user's shell, then the
// crontab's command, run as cron runs it: /bin/sh -c with only PATH,
// HOME, LOGNAME and SHELL set. The update must bring the upstream's new
// commit. git's real exec-path is overlaid in a mount namespace of the
// test's own, so that make install's links land where git looks without
// touching the machine's git.
func TestCronMirror(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: mounts an overlay on git's exec-path in a private mount namespace")
	}
	for _, tool := range []string{"unshare", "make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	env := gittest.Env(t) // no built binaries on PATH: only what make install puts
	execPath := strings.TrimSpace(gittest.Git(t, env, "", "--exec-path"))
	work := t.TempDir()
	upper, scratch := filepath.Join(work, "upper"), filepath.Join(work, "overlay-work")
	for _, d := range []string{upper, scratch} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// inNamespace runs script with git's exec-path overlaid (what is
	// written there goes to upper, and stays for the next call).
	inNamespace := func(what string, env []string, script string) string {
		t.Helper()
		c := exec.Command("unshare", "--mount", "--propagation", "private", "/bin/sh", "-ec",
			"mount -t overlay overlay -o lowerdir=\"$X\",upperdir=\"$U\",workdir=\"$W\" \"$X\"\n"+script)
		c.Env = append(append([]string{}, env...), "X="+execPath, "U="+upper, "W="+scratch)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		return string(out)
	}

	prefix := filepath.Join(work, "prefix")
	up := newUpstream(t, env, work, "up.git")
	mirror := filepath.Join(work, "srv", "project.git") // the tree of mirrors, as /srv/git
	// The user's shell: PREFIX/bin on PATH, as /usr/local/bin is.
	shell := append(append([]string{}, env...),
		"PATH="+filepath.Join(prefix, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		// The Go build cache and module cache of the test's user, not of
		// the sealed HOME.
		"GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"),
		"ROOT="+root, "PREFIX="+prefix, "BIN="+filepath.Join(work, "build"), "UP="+up, "MIRROR="+mirror)
	inNamespace("make install and clone --mirror", shell, `make -s -C "$ROOT" install PREFIX="$PREFIX" BIN="$BIN"
git clone -q --mirror "durable::$UP" "$MIRROR"
`)
	advance(t, env, up, 1, "")
	want := strings.TrimSpace(gittest.Git(t, env, up, "rev-parse", "main"))

	// The README's crontab line, "/usr/local/bin/git-remote-durable
	// --update-mirrors -j 4 /srv/git …", for this mirror's directory.
	job := filepath.Join(prefix, "bin", "git-remote-durable") + " --update-mirrors -j 4 " + filepath.Dir(mirror)
	inNamespace("the cron job", []string{"JOB=" + job, envValue(env, "HOME"), "PATH=/usr/sbin:/sbin:" + cronPATH},
		`exec env -i PATH=`+cronPATH+` HOME="$HOME" LOGNAME=root SHELL=/bin/sh /bin/sh -c "$JOB"
`)
	if got := strings.TrimSpace(gittest.Git(t, env, mirror, "rev-parse", "main")); got != want {
		t.Fatalf("after the cron job the mirror's main is %s, the upstream's %s", got, want)
	}
	gittest.Fsck(t, env, mirror)
}

// TestCronRunnerNoLinks: make install without root and without the links
// in git's exec-path (PREFIX=~/.local GITEXECDIR=, as the README gives
// it): the README's cron line updates the mirror under cron's PATH, which
// holds no helper — the runner hands the git it starts its own directory.
func TestCronRunnerNoLinks(t *testing.T) {
	for _, tool := range []string{"make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	prefix := filepath.Join(t.TempDir(), "local")
	if out, err := makeInstall(t, prefix, t.TempDir()); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	cronUpdates(t, filepath.Join(prefix, "bin"))
}
