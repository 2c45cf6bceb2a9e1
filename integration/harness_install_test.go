package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// The binaries installed as a user installs them (make install, go env)
// and the README's cron line run as cron runs it.

// makeInstall runs make install from the checkout into prefix, without
// the links into git's exec-path, with the binaries built in bin and the
// extra make arguments; it returns make's output and error.
func makeInstall(t *testing.T, prefix, bin string, extra ...string) (string, error) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", append([]string{"-s", "-C", root, "install", "PREFIX=" + prefix, "GITEXECDIR=", "BIN=" + bin}, extra...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// goEnv is `go env name`.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// cronPATH is the PATH cron gives a job (Debian's cron, Vixie cron).
const cronPATH = "/usr/bin:/bin"

// cronUpdates runs the README's crontab line with the runner of bin (a
// directory holding both binaries) as cron runs it — /bin/sh -c, with
// only cron's PATH, HOME, LOGNAME and SHELL — on a tree with a mirror
// through durable::, and fails the test unless it updates the mirror and
// says "ok".
func cronUpdates(t *testing.T, bin string) {
	t.Helper()
	env := gittest.Env(t) // the machine's git only: no built binary on PATH
	work := t.TempDir()
	up := newUpstream(t, env, work, "up.git")
	mirror := filepath.Join(work, "srv", "git", "project.git")
	clone := append(append([]string{}, env...), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	gittest.Git(t, clone, work, "clone", "-q", "--mirror", "durable::file://"+up, mirror)
	advance(t, env, up, 1, "")
	job := filepath.Join(bin, "git-remote-durable") + " --update-mirrors -j 4 " + filepath.Dir(mirror) + " >>$HOME/git-durable.log 2>&1"
	home := strings.TrimPrefix(envValue(env, "HOME"), "HOME=")
	c := exec.Command("env", "-i", "PATH="+cronPATH, "HOME="+home, "LOGNAME=root", "SHELL=/bin/sh", "GIT_CONFIG_NOSYSTEM=1", "/bin/sh", "-c", job)
	out, err := c.CombinedOutput()
	log, _ := os.ReadFile(filepath.Join(home, "git-durable.log"))
	if err != nil || !strings.Contains(string(log), mirror+" ok ") {
		t.Fatalf("the cron job: %v %s\n%s", err, out, log)
	}
	if a, b := refs(t, env, mirror), refs(t, env, up); a != b {
		t.Errorf("after the cron job:\n%s\nupstream:\n%s", a, b)
	}
}

// envValue returns the "KEY=value" entry of env for key.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if strings.HasPrefix(env[i], key+"=") {
			return env[i]
		}
	}
	return key + "="
}
