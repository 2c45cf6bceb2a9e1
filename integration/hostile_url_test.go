package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// recordingSSH is a GIT_SSH_COMMAND that writes its arguments to a log and
// fails: a test asserts the log does not exist.
func recordingSSH(t *testing.T) (cmd, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "argv")
	cmd = filepath.Join(dir, "ssh")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >>" + log + "\nexit 1\n"
	if err := os.WriteFile(cmd, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return cmd, log
}

// TestHostileSSHArguments: a user, host or path that ssh (or upload-pack)
// would read as an option is refused in git's words before any program
// runs, through durable:: as through plain git.
func TestHostileSSHArguments(t *testing.T) {
	for _, tc := range []struct {
		url, want string
		gitToo    bool // plain git blocks it with the same words
	}{
		{"ssh://-oProxyCommand=true@host/r.git", "fatal: strange hostname '-oProxyCommand=true@host' blocked", true},
		{"ssh://-oProxyCommand=true/r.git", "fatal: strange hostname '-oProxyCommand=true' blocked", true},
		{"ssh://u@-oProxyCommand=true/r.git", "fatal: strange hostname 'u@-oProxyCommand=true' blocked", false},
		{"host:-r.git", "fatal: strange pathname '-r.git' blocked", false},
		{"-oProxyCommand=true:x/r", "fatal: strange hostname '-oProxyCommand=true' blocked", false}, // git ls-remote takes it for an option
	} {
		t.Run(tc.url, func(t *testing.T) {
			ssh, log := recordingSSH(t)
			env := env(t, "GIT_SSH_COMMAND="+ssh)
			dir := t.TempDir()
			for _, prefix := range []string{"", "durable::"} {
				c := gittest.Exec(t, env, dir, nil, "git", "ls-remote", prefix+tc.url)
				if prefix == "" && !tc.gitToo {
					os.Remove(log) // plain git passes "u@-o…" to ssh as one argument
					continue
				}
				if _, err := os.Stat(log); err == nil {
					b, _ := os.ReadFile(log)
					t.Fatalf("%s%s: ssh ran with %q", prefix, tc.url, b)
				}
				r := result{Cmd: c}
				if c.Code != 128 || r.lastLine() != tc.want || len(c.Stdout) != 0 {
					t.Errorf("%s%s: exit %d, last line %q, stdout %q; want 128, %q", prefix, tc.url, c.Code, r.lastLine(), c.Stdout, tc.want)
				}
			}
		})
	}
}

// TestHostileSubmoduleURL: a .gitmodules URL through durable:: with a
// dashed host never reaches ssh, even where the user allowed durable for
// submodules.
func TestHostileSubmoduleURL(t *testing.T) {
	ssh, log := recordingSSH(t)
	env := env(t, "GIT_SSH_COMMAND="+ssh)
	base := t.TempDir()
	super := filepath.Join(base, "super")
	gittest.Git(t, env, base, "init", "-q", "-b", "main", super)
	gittest.WriteFile(t, super, ".gitmodules", "[submodule \"s\"]\n\tpath = s\n\turl = durable::ssh://-oProxyCommand=true@h/x\n")
	sub := gittest.Init(t, env, false, "")
	gittest.WriteFile(t, sub, "f", "x\n")
	gittest.Git(t, env, sub, "add", "f")
	gittest.Git(t, env, sub, "commit", "-q", "-m", "s")
	id := strings.TrimSpace(gittest.Git(t, env, sub, "rev-parse", "HEAD"))
	gittest.Git(t, env, super, "update-index", "--add", "--cacheinfo", "160000,"+id+",s")
	gittest.Git(t, env, super, "add", ".gitmodules")
	gittest.Git(t, env, super, "commit", "-q", "-m", "super")
	c := gittest.Exec(t, env, base, nil, "git", "-c", "protocol.durable.allow=always", "-c", "protocol.file.allow=always",
		"clone", "-q", "--recurse-submodules", super, filepath.Join(base, "clone"))
	if _, err := os.Stat(log); err == nil {
		b, _ := os.ReadFile(log)
		t.Fatalf("ssh ran with %q", b)
	}
	if c.Code == 0 || !strings.Contains(string(c.Stderr), "fatal: strange hostname '-oProxyCommand=true@h' blocked") {
		t.Errorf("exit %d\n%s", c.Code, c.Stderr)
	}
}

// TestProtocolPolicy: git's protocol policy applies to the URL inside
// durable:: as to the same URL given to plain git: same refusal, same exit
// code, no refs listed.
func TestProtocolPolicy(t *testing.T) {
	env0 := env(t)
	base := t.TempDir()
	up := newUpstream(t, env0, base, "up.git")
	daemon := startHostile(t, env0, up, lie{})
	allowDurable := []string{"-c", "protocol.durable.allow=always"}
	for _, tc := range []struct {
		name   string
		url    string
		env    []string
		config []string
		denied string // the protocol refused, "" when allowed
	}{
		{"file from the user", "file://" + up, nil, nil, ""},
		{"file not from the user", "file://" + up, []string{"GIT_PROTOCOL_FROM_USER=0"}, allowDurable, "file"},
		{"path not from the user", up, []string{"GIT_PROTOCOL_FROM_USER=0"}, allowDurable, "file"},
		{"file never", "file://" + up, nil, []string{"-c", "protocol.file.allow=never"}, "file"},
		{"protocol.allow never", "file://" + up, nil, []string{"-c", "protocol.allow=never", "-c", "protocol.durable.allow=always"}, "file"},
		{"protocol.allow never, file always", "file://" + up, nil, []string{"-c", "protocol.allow=never", "-c", "protocol.durable.allow=always", "-c", "protocol.file.allow=always"}, ""},
		{"allow list without file", "file://" + up, []string{"GIT_ALLOW_PROTOCOL=durable:git"}, nil, "file"},
		{"allow list with file", "file://" + up, []string{"GIT_ALLOW_PROTOCOL=durable:file"}, nil, ""},
		{"git never", daemon.url, nil, []string{"-c", "protocol.git.allow=never"}, "git"},
		{"git user, not from the user", daemon.url, []string{"GIT_PROTOCOL_FROM_USER=0"}, []string{"-c", "protocol.git.allow=user", "-c", "protocol.durable.allow=always"}, "git"},
		{"allow list without git", daemon.url, []string{"GIT_ALLOW_PROTOCOL=durable:file"}, nil, "git"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := append(append([]string{}, env0...), tc.env...)
			for _, prefix := range []string{"", "durable::"} {
				c := gittest.Exec(t, env, base, nil, "git", append(append([]string{}, tc.config...), "ls-remote", prefix+tc.url)...)
				r := result{Cmd: c}
				if tc.denied == "" {
					if c.Code != 0 || !strings.Contains(string(c.Stdout), "refs/heads/main") {
						t.Errorf("%s%s: exit %d, stdout %q\n%s", prefix, tc.url, c.Code, c.Stdout, c.Stderr)
					}
					continue
				}
				want := "fatal: transport '" + tc.denied + "' not allowed"
				if c.Code != 128 || r.lastLine() != want || len(c.Stdout) != 0 {
					t.Errorf("%s%s: exit %d, last line %q, stdout %q; want 128 and %q", prefix, tc.url, c.Code, r.lastLine(), c.Stdout, want)
				}
			}
		})
	}
}

// TestPasswordInURLWarned: git prints and stores whatever follows
// durable::, password included; the helper says so once, without the
// password.
func TestPasswordInURLWarned(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	d := startHostile(t, env, up, lie{})
	url := strings.Replace(d.url, "git://", "git://user:s3cr3tpw@", 1)
	c := gittest.Exec(t, env, base, nil, "git", "ls-remote", "durable::"+url)
	mustRun(t, c, "ls-remote")
	errs := string(c.Stderr)
	if strings.Count(errs, "carries a password") != 1 || strings.Contains(errs, "s3cr3tpw") {
		t.Errorf("stderr:\n%s", errs)
	}
}

// TestHostileDaemonPath: the request line sent to a git:// server is the
// one plain git sends for the same URL: "%00" is not decoded (a NUL would
// end the path and give the daemon another "host=", another virtual
// host's repository), other escapes are; the host and port are as the URL
// spells them; a newline is refused before anything is sent. git 2.39
// adds "\0version=2\0" for protocol v2, which the helper does not speak.
func TestHostileDaemonPath(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	d := startHostile(t, env, up, lie{})
	root := strings.TrimSuffix(d.url, "/repo")
	for _, path := range []string{"/a%00b", "/a%20b", "/~u/r.git", "/a%0ab"} {
		t.Run(path, func(t *testing.T) {
			var sent [2][]string
			for i, side := range hostileSides {
				c := gittest.Exec(t, env, base, nil, "git", "ls-remote", side.prefix+root+path)
				sent[i] = d.requests()
				for j, r := range sent[i] {
					sent[i][j] = strings.TrimSuffix(r, "\x00version=2\x00")
				}
				if path == "/a%0ab" {
					r := result{Cmd: c}
					if c.Code != 128 || r.lastLine() != "fatal: newline is forbidden in git:// hosts and repo paths" || len(sent[i]) != 0 {
						t.Errorf("%s: exit %d, last line %q, requests %q", side.name, c.Code, r.lastLine(), sent[i])
					}
					continue
				}
				if c.Code != 0 || !strings.Contains(string(c.Stdout), "refs/heads/main") {
					t.Errorf("%s: exit %d, stdout %q\n%s", side.name, c.Code, c.Stdout, c.Stderr)
				}
			}
			if strings.Join(sent[0], "|") != strings.Join(sent[1], "|") {
				t.Errorf("git sent %q, the helper %q", sent[0], sent[1])
			}
		})
	}
}
