package integration

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
		// ext:: runs a command: git never allows it by default, and the
		// helper, which runs no command an address names, refuses it in
		// git's words before anything starts (it read it as an ssh host).
		{"ext by default", "ext::touch " + filepath.Join(base, "ran"), nil, nil, "ext"},
		{"ext not in the allow list", "ext::touch " + filepath.Join(base, "ran"), []string{"GIT_ALLOW_PROTOCOL=durable:file"}, nil, "ext"},
		{"fd never", "fd::9", nil, []string{"-c", "protocol.fd.allow=never"}, "fd"},
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
				if _, err := os.Stat(filepath.Join(base, "ran")); err == nil {
					t.Fatalf("%s%s: the command ran", prefix, tc.url)
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

// TestHostileAuthority: an authority git refuses or cannot reach — a port
// of 0, above 65535 or too long to parse, an unescaped '@' in the user
// information — is refused in git's words (curl's over http, connect.c's
// over git://, ssh's under git) with exit 128 before anything connects or
// runs: the listener on the port the helper's URL parser would have
// picked gets no connection, the recording ssh never runs. Plain git
// fails on each too (over ssh it hands the authority to ssh, which the
// recording ssh fails).
func TestHostileAuthority(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	hp := ln.Addr().String()
	_, port, _ := net.SplitHostPort(hp)
	n, _ := strconv.Atoi(port)
	wrapped := strconv.Itoa(n + 65536) // read mod 2^16, it is the listener's
	for _, tc := range []struct{ url, want string }{
		{"http://u:secret@v@" + hp + "/r.git", "fatal: unable to access 'http://" + hp + "/r.git': URL using bad/illegal format or missing URL"},
		{"git://u@v@" + hp + "/r.git", "fatal: unable to look up v@127.0.0.1 (port " + port + ") (Name or service not known)"},
		{"ssh://u@v@" + hp + "/r.git", "fatal: strange hostname 'v@127.0.0.1' blocked"},
		{"u@v@127.0.0.1:r.git", "fatal: strange hostname 'v@127.0.0.1' blocked"},
		{"http://127.0.0.1:0/r.git", "fatal: unable to access 'http://127.0.0.1:0/r.git': URL using bad/illegal format or missing URL"},
		{"http://127.0.0.1:" + wrapped + "/r.git", "fatal: unable to access 'http://127.0.0.1:" + wrapped + "/r.git': URL using bad/illegal format or missing URL"},
		{"https://127.0.0.1:99999999999999999999/r.git", "fatal: unable to access 'https://127.0.0.1:99999999999999999999/r.git': URL using bad/illegal format or missing URL"},
		{"git://127.0.0.1:0/r.git", "fatal: unable to look up 127.0.0.1:0 (port 9418) (Name or service not known)"},
		{"git://127.0.0.1:" + wrapped + "/r.git", "fatal: unable to look up 127.0.0.1:" + wrapped + " (port 9418) (Name or service not known)"},
		{"ssh://127.0.0.1:0/r.git", "fatal: ssh: Bad port '0'"},
		{"ssh://127.0.0.1:" + wrapped + "/r.git", "fatal: ssh: Could not resolve hostname 127.0.0.1:" + wrapped + ": Name or service not known"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			ssh, log := recordingSSH(t)
			env := env(t, "GIT_SSH_COMMAND="+ssh)
			dir := t.TempDir()
			if c := gittest.Exec(t, env, dir, nil, "git", "ls-remote", tc.url); c.Code == 0 {
				t.Errorf("plain git listed %s:\n%s", tc.url, c.Stdout)
			}
			os.Remove(log)
			before := accepted.Load()
			c := gittest.Exec(t, env, dir, nil, "git", "ls-remote", "durable::"+tc.url)
			if r := (result{Cmd: c}); c.Code != 128 || r.lastLine() != tc.want || len(c.Stdout) != 0 {
				t.Errorf("exit %d, last line %q, stdout %q; want 128, %q", c.Code, r.lastLine(), c.Stdout, tc.want)
			}
			if strings.Contains(string(c.Stderr), "secret") {
				t.Errorf("the password shows:\n%s", c.Stderr)
			}
			time.Sleep(50 * time.Millisecond)
			if got := accepted.Load() - before; got != 0 {
				t.Errorf("%d connections reached the listener", got)
			}
			if b, err := os.ReadFile(log); err == nil {
				t.Errorf("ssh ran with %q", b)
			}
		})
	}
}

// TestOtherHelperInside: an address inside durable:: that git gives
// another remote helper (fd::, foo::) where git's policy allows it is
// refused before anything runs or connects, saying why: the helper
// fetches over git's own transports only. (Before: read as an ssh host.)
func TestOtherHelperInside(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	for _, url := range []string{"fd::9", "foo::bar"} {
		c := gittest.Exec(t, env, base, nil, "git", "ls-remote", "durable::"+url)
		if r := (result{Cmd: c}); c.Code != 128 || !strings.Contains(r.lastLine(), "names another remote helper") {
			t.Errorf("%s: exit %d, %q", url, c.Code, r.lastLine())
		}
	}
}

// TestPortLeadingZeros: a port written with leading zeros is the port
// without them, for the helper as for git and curl: a clone over HTTP
// from http://127.0.0.1:0<port>/ works. (Before: refused as a bad URL.)
func TestPortLeadingZeros(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	web := startHTTP(t, httpBackend(t, env, base))
	host, port, _ := strings.Cut(strings.TrimPrefix(web, "http://"), ":")
	url := "http://" + host + ":00" + port + "/up.git"
	for _, prefix := range []string{"", "durable::"} {
		dst := filepath.Join(t.TempDir(), "c.git")
		c := gittest.Exec(t, env, base, nil, "git", "clone", "-q", "--mirror", prefix+url, dst)
		mustRun(t, c, prefix+url)
		if a, b := refs(t, env, dst), refs(t, env, up); a != b {
			t.Errorf("%s: refs\n%s\nupstream\n%s", prefix, a, b)
		}
	}
}
