//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// readmeUser is the user the test creates for the README's "git".
const readmeUser = "gd-readme-test"

// TestOperatorReadme follows the README's "A mirror host on Debian 12" as
// an operator does, command by command, from the package make deb builds:
// its files extracted under the test's directory, the host's paths moved
// there (/usr/bin, /lib/systemd, /srv/git, /var/lib/git-durable,
// node_exporter's textfile directory, /etc), its user "git" a user the test
// creates as the package's postinst does (TestDebianPackage installs it with
// apt-get), its upstream a local one, and systemd's start of the service
// done by hand: each service's ExecStart, as its User= with its
// Environment= and systemd's PATH, which holds no helper. systemd-analyze
// verifies the unit and the timer, logrotate -d the rotation, and
// node_exporter's textfile collector scrapes what the services wrote: the
// mirror updated durably and verified, with no error of the collector.
func TestOperatorReadme(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating the mirrors' user needs root")
	}
	for _, tool := range []string{"make", "go", "adduser", "runuser", "userdel", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	nodeExporter(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	steps := readmeSteps(t, "**A mirror host on Debian 12**")
	host := t.TempDir()
	if err := os.Chmod(host, 0o755); err != nil {
		t.Fatal(err)
	}
	env := gittest.Env(t)
	upstreams := t.TempDir()
	up := newUpstream(t, env, upstreams, "up.git")
	url := fmtDaemonURL(startDaemon(t, env, upstreams), "up.git")
	os.Chmod(filepath.Dir(host), 0o755) // the mirrors' user reaches its home
	textfile := filepath.Join(host, "var/lib/prometheus/node-exporter")
	for _, d := range []string{textfile} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exec.Command("userdel", readmeUser).Run() // a run that was killed
	exec.Command("groupdel", readmeUser).Run()
	t.Cleanup(func() {
		exec.Command("userdel", readmeUser).Run()
		exec.Command("groupdel", readmeUser).Run()
	})
	bin := filepath.Join(host, "usr/bin")
	move := strings.NewReplacer(
		"/usr/bin/", bin+"/", "/srv/git", filepath.Join(host, "srv/git"), "/var/lib/git-durable", filepath.Join(host, "var/lib/git-durable"),
		"/var/lib/prometheus/node-exporter", textfile, "/etc/", filepath.Join(host, "etc")+"/",
		"https://example.com/project.git", url, "su git git", "su "+readmeUser+" "+readmeUser, "User=git", "User="+readmeUser, "Group=git", "Group="+readmeUser,
		"-o git -g git", "-o "+readmeUser+" -g "+readmeUser, "runuser -u git -- ", "runuser -u "+readmeUser+" -- ", "chgrp git ", "chgrp "+readmeUser+" ")
	shell := append(env, "PATH="+bin+":/usr/sbin:/sbin:"+os.Getenv("PATH"))
	ran := 0
	for _, step := range steps {
		line := move.Replace(step)
		switch {
		case strings.HasPrefix(line, "apt-get install ./git-durable_"):
			// The package (make deb), its files extracted under the host
			// directory, and what its postinst does: the system user.
			line = "dpkg-deb -x " + makeDeb(t) + " " + host + " && adduser --system --group --home " + filepath.Join(host, "var/lib/git-durable") + " " + readmeUser
		case strings.HasPrefix(line, "apt-get install"), strings.HasPrefix(line, "systemctl "):
			continue // node_exporter is there; systemd's start is done by hand below
		}
		c := exec.Command("/bin/sh", "-ec", line)
		c.Env, c.Dir = shell, root
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		ran++
	}
	if ran < 4 {
		t.Fatalf("ran %d of the README's steps: %q", ran, steps)
	}
	unit := filepath.Join(host, "lib/systemd/system/git-durable-mirrors.service")
	rewriteFile(t, unit, move)
	rewriteFile(t, filepath.Join(host, "etc/logrotate.d/git-durable"), move)
	service := readService(t, unit)
	mirror := filepath.Join(host, "srv/git/project.git")
	advance(t, env, up, 1, "readme1")
	for i := range 2 {
		c := startService(t, service)
		if !strings.Contains(c, mirror+" ok ") {
			t.Fatalf("run %d of the service:\n%s", i+1, c)
		}
	}
	verifyUnit := filepath.Join(host, "lib/systemd/system/git-durable-verify.service")
	rewriteFile(t, verifyUnit, move)
	if c := startService(t, readService(t, verifyUnit)); !strings.Contains(c, mirror+" ok ") || !strings.Contains(c, "(verified ") {
		t.Errorf("the verification service:\n%s", c)
	}
	gittest.Git(t, env, "", "config", "--global", "--add", "safe.directory", mirror) // the test's git reads the user's mirror
	if a, b := refs(t, env, mirror), refs(t, env, up); a != b {
		t.Errorf("the mirror\n%s\nthe upstream\n%s", a, b)
	}
	scrape := scrapeClean(t, textfile)
	// node_exporter orders the labels by name.
	scraped := func(name string) string {
		return name + `{repository="` + mirror + `",runner="` + filepath.Join(host, "srv/git") + `"} 1` + "\n"
	}
	for _, want := range []string{scraped("git_durable_update_durable"), scraped("git_durable_update_success"), scraped("git_durable_verify_success")} {
		if !strings.Contains(scrape, want) {
			t.Errorf("the scrape lacks %q:\n%s", want, scrape)
		}
	}
	verifyUnits(t, unit)
	verifyUnits(t, verifyUnit)
	checkLogrotate(t, filepath.Join(host, "etc/logrotate.d/git-durable"), service.env["GIT_REMOTE_DURABLE_STATS"])
}

// readmeSteps returns the commands of the README's code block that follows
// the paragraph starting with heading.
func readmeSteps(t *testing.T, heading string) []string {
	t.Helper()
	b := string(readFile(t, "../README.md"))
	i := strings.Index(b, heading)
	if i < 0 {
		t.Fatalf("the README has no %q", heading)
	}
	var steps []string
	inBlock := false
	for _, l := range strings.Split(b[i:], "\n") {
		if cmd, ok := strings.CutPrefix(l, "    "); ok {
			inBlock = true
			steps = append(steps, cmd)
		} else if inBlock {
			break
		}
	}
	return steps
}

// rewriteFile passes the content of path through r.
func rewriteFile(t *testing.T, path string, r *strings.Replacer) {
	t.Helper()
	if err := os.WriteFile(path, []byte(r.Replace(string(readFile(t, path)))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fmtDaemonURL is the git:// URL of the repository name under git daemon
// on port.
func fmtDaemonURL(port int, name string) string {
	return "git://127.0.0.1:" + strconv.Itoa(port) + "/" + name
}

// unitService is what the test reads of a systemd service: its user, its
// Environment= settings and its ExecStart command line.
type unitService struct {
	user string
	env  map[string]string
	exec []string
}

// readService reads the service unit at path.
func readService(t *testing.T, path string) unitService {
	t.Helper()
	s := unitService{env: map[string]string{}}
	for _, l := range strings.Split(string(readFile(t, path)), "\n") {
		k, v, _ := strings.Cut(l, "=")
		switch k {
		case "User":
			s.user = v
		case "Environment":
			name, value, _ := strings.Cut(v, "=")
			s.env[name] = value
		case "ExecStart":
			s.exec = strings.Fields(v)
		}
	}
	if s.user == "" || len(s.exec) == 0 {
		t.Fatalf("%s: no User= or ExecStart=", path)
	}
	return s
}

// systemdPATH is the PATH systemd gives a service.
const systemdPATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// startService runs the service's command as systemd would start it: as
// its user, with only its Environment= and systemd's PATH; it returns
// what the command printed.
func startService(t *testing.T, s unitService) string {
	t.Helper()
	args := []string{"-u", s.user, "--", "env", "-i", "PATH=" + systemdPATH}
	for k, v := range s.env {
		args = append(args, k+"="+v)
	}
	out, err := exec.Command("runuser", append(args, s.exec...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("the service: %v\n%s", err, out)
	}
	return string(out)
}

// verifyUnits runs systemd-analyze verify on the service at path and the
// timer beside it, where systemd-analyze is installed.
func verifyUnits(t *testing.T, path string) {
	t.Helper()
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Logf("systemd-analyze is not installed: the units are not verified")
		return
	}
	timer := strings.TrimSuffix(path, ".service") + ".timer"
	if out, err := exec.Command(analyze, "verify", path, timer).CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// checkLogrotate runs logrotate -d on the configuration conf, where
// logrotate is installed: no error, and the statistics file is the one it
// rotates.
func checkLogrotate(t *testing.T, conf, stats string) {
	t.Helper()
	lr, err := exec.LookPath("logrotate")
	if err != nil {
		t.Logf("logrotate is not installed: its configuration is not checked")
		return
	}
	out, err := exec.Command(lr, "-d", "-s", filepath.Join(t.TempDir(), "state"), conf).CombinedOutput()
	if err != nil || strings.Contains(strings.ToLower(string(out)), "error") || !strings.Contains(string(out), stats) {
		t.Errorf("logrotate -d: %v\n%s", err, out)
	}
}
