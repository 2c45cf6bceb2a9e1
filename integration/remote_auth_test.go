package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteHTTPAuth clones, fetches and pushes through a server that
// wants Basic credentials, answered by a credential helper configured in
// git's config; wrong credentials fail with git's words, and the password
// never shows.
func TestRemoteHTTPAuth(t *testing.T) {
	const user, pass = "alice", "s3cret-pass-xyz"
	env := env(t)
	base := t.TempDir()
	dir := newUpstream(t, env, base, "up.git")
	url := startHTTP(t, basicAuth(user, pass, httpBackend(t, env, base))) + "/up.git"
	work := t.TempDir()

	gittest.Git(t, env, "", "config", "--global", "credential.helper", credentialHelper(t, work, map[string]login{"*": {user, pass}}))
	ours := filepath.Join(work, "ours")
	c, stats := durable(t, env, "", "clone", "durable::"+url, ours)
	mustRun(t, c, "clone with credentials from the helper")
	checkBatches(t, stats)
	advance(t, env, dir, 1, "v500")
	c, _ = durable(t, env, ours, "fetch")
	mustRun(t, c, "fetch with credentials from the helper")
	gittest.WriteFile(t, ours, "auth.txt", "pushed with credentials\n")
	gittest.Git(t, env, ours, "add", "auth.txt")
	gittest.Git(t, env, ours, "commit", "-q", "-m", "auth")
	c = gittest.Exec(t, env, ours, nil, "git", "push", "origin", "HEAD:refs/heads/authed")
	mustRun(t, c, "push with credentials from the helper")
	if a := actions(credentialLog(t, work)); !strings.Contains(a, "get store") {
		t.Errorf("the credential helper was not asked and told: %q", a)
	}
	if strings.Contains(string(c.Stderr), pass) {
		t.Fatal("the password shows")
	}

	// Wrong credentials from the helper: rejected, git's message.
	gittest.Git(t, env, "", "config", "--global", "credential.helper", credentialHelper(t, work, map[string]login{"*": {user, "wrong-pass-abc"}}))
	before := refs(t, env, ours)
	c = gittest.Exec(t, env, ours, nil, "git", "fetch")
	failed(t, env, c, ours, before, "fatal: Authentication failed for '"+url+"'", "wrong-pass-abc", pass)
	if a := actions(credentialLog(t, work)); !strings.Contains(a, "get erase") {
		t.Errorf("the credential helper was not told to erase: %q", a)
	}

	// No helper and no terminal: git credential's own words.
	gittest.Git(t, env, "", "config", "--global", "--unset", "credential.helper")
	c = gittest.Exec(t, env, "", nil, "git", "clone", "durable::"+url, filepath.Join(work, "none"))
	failed(t, env, c, "", "", "fatal: could not read Username for")

	// Credentials in the URL: used, and never shown.
	withPass := strings.Replace(url, "http://", "http://"+user+":"+pass+"@", 1)
	c, _ = durable(t, env, "", "clone", "durable::"+withPass, filepath.Join(work, "inurl"))
	mustRun(t, c, "clone with credentials in the URL")
	if strings.Contains(string(c.Stderr), pass) {
		t.Fatal("the password shows")
	}
	badPass := strings.Replace(url, "http://", "http://"+user+":bad-in-url-123@", 1)
	c = gittest.Exec(t, env, "", nil, "git", "clone", "durable::"+badPass, filepath.Join(work, "badurl"))
	failed(t, env, c, "", "", "fatal: Authentication failed for '"+url+"'", "bad-in-url-123")
}

// TestRemoteHTTPEmptyAuth: with http.emptyAuth=true, a server that asks
// for credentials gets empty Basic ones first, as curl sends them for git:
// one that takes them (a front end that authenticates otherwise) is cloned
// through the helper as through plain git, with no user asked for; without
// the setting both fail for want of a user name. Where the empty ones are
// refused, git credential is asked as without the setting.
func TestRemoteHTTPEmptyAuth(t *testing.T) {
	env := sealedHTTP(t)
	base := t.TempDir()
	newUpstream(t, env, base, "up.git")
	url := startHTTP(t, basicAuth("", "", httpBackend(t, env, base))) + "/up.git"
	for _, side := range hostileSides {
		dir := filepath.Join(t.TempDir(), "clone")
		c := gittest.Exec(t, env, "", nil, "git", "-c", "http.emptyAuth=true", "clone", "-q", side.prefix+url, dir)
		mustRun(t, c, side.name+" clone with http.emptyAuth")
		gittest.Fsck(t, env, dir)
		c = gittest.Exec(t, env, "", nil, "git", "clone", "-q", side.prefix+url, filepath.Join(t.TempDir(), "clone"))
		if c.Code == 0 || !strings.Contains(string(c.Stderr), "could not read Username") {
			t.Errorf("%s: without http.emptyAuth: exit %d\n%s", side.name, c.Code, c.Stderr)
		}
	}
	const user, pass = "alice", "s3cret-empty-77"
	url = startHTTP(t, basicAuth(user, pass, httpBackend(t, env, base))) + "/up.git"
	work := t.TempDir()
	gittest.Git(t, env, "", "config", "--global", "credential.helper", credentialHelper(t, work, map[string]login{"*": {user, pass}}))
	for _, side := range hostileSides {
		c := gittest.Exec(t, env, "", nil, "git", "-c", "http.emptyAuth=true", "clone", "-q", side.prefix+url, filepath.Join(t.TempDir(), "clone"))
		mustRun(t, c, side.name+" clone with http.emptyAuth and a credential helper")
	}
}

// TestRemoteExtraHeader reaches a server that wants a header, set with
// http.<url>.extraHeader as mirror platforms do; without it the server
// refuses, and the header's value never shows.
func TestRemoteExtraHeader(t *testing.T) {
	const token = "Bearer t0ken-value-789"
	env := env(t)
	base := t.TempDir()
	newUpstream(t, env, base, "up.git")
	root := startHTTP(t, requireHeader("Authorization", token, httpBackend(t, env, base)))
	work := t.TempDir()
	c := gittest.Exec(t, env, "", nil, "git", "clone", "durable::"+root+"/up.git", filepath.Join(work, "refused"))
	failed(t, env, c, "", "", "fatal: Authentication failed for '"+root+"/up.git'")

	gittest.Git(t, env, "", "config", "--global", "http."+root+"/.extraHeader", "Authorization: "+token)
	c, stats := durable(t, env, "", "clone", "durable::"+root+"/up.git", filepath.Join(work, "ours"))
	mustRun(t, c, "clone with http.<url>.extraHeader")
	checkBatches(t, stats)
	if strings.Contains(string(c.Stderr), "t0ken-value-789") {
		t.Fatal("the header shows")
	}
}

// TestRemoteSSHCommand runs the user's ssh from core.sshCommand the way git
// does: port option, user@host, and the quoted remote command (protocol
// v0: TestRemoteSSHProtocol has v2's SendEnv).
func TestRemoteSSHCommand(t *testing.T) {
	env := env(t, "GIT_SSH_VARIANT=ssh", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0=0")
	base := t.TempDir()
	dir := newUpstream(t, env, base, "up.git")
	gittest.Git(t, env, "", "config", "--global", "core.sshCommand", fakeSSH(t, base))
	trace2 := filepath.Join(base, "trace2.json")
	c, stats := durable(t, append(env, "GIT_TRACE2_EVENT="+trace2), "", "clone", "durable::ssh://git@fakehost:2222"+dir, filepath.Join(t.TempDir(), "ours"))
	mustRun(t, c, "clone over core.sshCommand")
	checkBatches(t, stats)
	// The helper's fsync counters, in git's trace2 words, next to git's
	// events: one hardware flush for the objects, one for the refs, HEAD
	// and config git wrote around them (settle).
	events := fsyncEvents(t, trace2)
	if !contains(events, `data fsync/hardware-flush="2"`) && !contains(events, "counter hardware-flush=2") {
		t.Errorf("no hardware-flush counter of 2 in the trace2 events %q", events)
	}
	b, err := os.ReadFile(filepath.Join(base, "ssh.log"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "-p 2222 git@fakehost git-upload-pack '" + dir + "'\n"; !strings.HasPrefix(string(b), want) {
		t.Fatalf("ssh ran with %q, want %q", b, want)
	}
}

// TestRemoteSSHProtocol: over ssh, protocol v2 is asked for as git's
// connect.c asks, "-o SendEnv=GIT_PROTOCOL" before the port option for
// OpenSSH with GIT_PROTOCOL=version=2 in ssh's environment, which the fake
// ssh hands upload-pack (an sshd needs AcceptEnv: TestRemoteRealSSH); the
// helper's ssh runs with plain git's arguments, and upload-pack answers
// v2. A variant other than OpenSSH gets neither, as from git.
func TestRemoteSSHProtocol(t *testing.T) {
	for _, variant := range []string{"ssh", "plink"} {
		t.Run(variant, func(t *testing.T) {
			env := env(t, "GIT_SSH_VARIANT="+variant)
			base := t.TempDir()
			dir := newUpstream(t, env, base, "up.git")
			gittest.Git(t, env, "", "config", "--global", "core.sshCommand", fakeSSH(t, base))
			log := filepath.Join(base, "ssh.log")
			url := "ssh://git@fakehost:2222" + dir
			packets := filepath.Join(base, "packets")
			plain := gittest.Exec(t, append(env, "GIT_TRACE_PACKET="+packets), "", nil, "git", "ls-remote", url)
			mustRun(t, plain, "plain git ls-remote")
			gitArgs, _ := os.ReadFile(log)
			gitTrace, _ := os.ReadFile(packets)
			os.Remove(log)
			os.Remove(packets)
			c := gittest.Exec(t, append(env, "GIT_TRACE_PACKET="+packets), "", nil, "git", "ls-remote", "durable::"+url)
			mustRun(t, c, "ls-remote through the helper")
			ours, _ := os.ReadFile(log)
			trace, _ := os.ReadFile(packets)
			if string(ours) != string(gitArgs) {
				t.Errorf("ssh ran with %q, plain git's with %q", ours, gitArgs)
			}
			wantArgs := "-P 2222 git@fakehost git-upload-pack '" + dir + "'\n"
			if variant == "ssh" {
				wantArgs = "-o SendEnv=GIT_PROTOCOL -p 2222 git@fakehost git-upload-pack '" + dir + "'\n"
			}
			if string(ours) != wantArgs {
				t.Errorf("ssh ran with %q, want %q", ours, wantArgs)
			}
			v2, gitV2 := strings.Contains(string(trace), "upload-pack> version 2\n"), strings.Contains(string(gitTrace), "upload-pack> version 2\n")
			if v2 != (variant == "ssh") || v2 != gitV2 {
				t.Errorf("upload-pack spoke v2: %v for the helper, %v for git", v2, gitV2)
			}
			if string(c.Stdout) != string(plain.Stdout) {
				t.Errorf("ls-remote:\n%s\nplain git:\n%s", c.Stdout, plain.Stdout)
			}
		})
	}
}
