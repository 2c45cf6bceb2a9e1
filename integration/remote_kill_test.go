//go:build linux

package integration

import (
	"fmt"

	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// stall is a global configuration (a file, for GIT_CONFIG_GLOBAL) under
// which git upload-pack, once the file armed exists, sends half of its pack
// and then nothing more: its pack-objects hook creates the file stalled
// once the half is out and becomes a sleep, which upload-pack stops when it
// is stopped.
type stall struct{ global, armed, stalled string }

func newStall(t *testing.T, env []string) stall {
	t.Helper()
	dir := t.TempDir()
	s := stall{filepath.Join(dir, "gitconfig"), filepath.Join(dir, "armed"), filepath.Join(dir, "stalled")}
	hook := filepath.Join(dir, "hook")
	script := "#!/bin/sh\n[ -e " + s.armed + " ] || exec \"$@\"\n\"$@\" >" + dir + "/pack\nn=$(wc -c <" + dir + "/pack)\n" +
		"head -c $((n / 2)) " + dir + "/pack\n>" + s.stalled + "\nexec sleep 600\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, env, "", "config", "--file", s.global, "uploadpack.packObjectsHook", hook)
	return s
}

// descendants returns the processes under pid, with their commands.
func descendants(pid int) map[int]string {
	parent := map[int]int{}
	cmds := map[int]string{}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		n, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[0] != "Z" {
			parent[n], _ = strconv.Atoi(f[1])
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", n))
			cmds[n] = strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	out := map[int]string{}
	for n := range parent {
		for p := parent[n]; p > 1; p = parent[p] {
			if p == pid {
				out[n] = cmds[n]
				break
			}
		}
	}
	return out
}

// alive reports whether pid runs (a zombie has exited).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// TestRemoteDiesWithGit starts git fetch through durable:: from a file://,
// a git://, an ssh (a fake that becomes the upload-pack it runs, as ssh is
// one process) and a real sshd upstream, whose upload-pack stalls halfway
// through the pack while the helper writes an object to a temporary file;
// then it kills git alone (SIGKILL to its pid, not its group), or the
// helper's parent (the git that ran it), or sends the helper SIGTERM.
// Within 5 seconds every process git had started below it — the helper,
// git upload-pack and its pack-objects hook, ssh — must be gone, with no
// temporary file left in the repository, its refs as they were and fsck
// clean. A pack kept as a pack (fetch.unpackLimit=1) is a row, and so is
// a clone killed in the same way.
func TestRemoteDiesWithGit(t *testing.T) {
	for _, tc := range []struct{ kind, kill, mode string }{
		{"file", "git", ""}, {"file", "git", "kept-pack"}, {"file", "git", "clone"}, {"git", "git", ""},
		{"ssh", "git", ""}, {"ssh", "git", "clone"}, {"sshd", "git", ""},
		{"file", "helper", ""}, {"ssh", "helper", ""}, {"sshd", "helper", ""}, {"file", "parent", ""},
	} {
		name := strings.TrimSuffix(tc.kind+"-kill-"+tc.kill+"-"+tc.mode, "-")
		t.Run(name, func(t *testing.T) {
			env := env(t)
			base := t.TempDir()
			dir := newUpstream(t, env, base, "up.git")
			st := newStall(t, env)
			env = append(env, "GIT_CONFIG_GLOBAL="+st.global)
			url := killUpstream(t, &env, tc.kind, base, dir, st)
			ours := filepath.Join(base, "ours")
			var before string
			if tc.mode != "clone" {
				c, _ := durable(t, env, "", "clone", "-q", "durable::"+url, ours)
				mustRun(t, c, "clone")
				if tc.mode == "kept-pack" {
					gittest.Git(t, env, ours, "config", "fetch.unpackLimit", "1")
				}
			}
			bigCommit(t, env, dir, 1, 24<<20) // one entry the helper streams to a temporary file while upload-pack stalls
			if err := os.WriteFile(st.armed, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.mode == "clone" {
				killMidStall(t, env, base, filepath.Join(ours, ".git"), st, tc.kill, "clone", "-q", "durable::"+url, ours)
			} else {
				before = refs(t, env, ours)
				killMidStall(t, env, ours, filepath.Join(ours, ".git"), st, tc.kill, "fetch", "-q")
			}
			if tmp := tempFiles(t, filepath.Join(ours, ".git")); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			if tc.mode == "clone" {
				return // git's own cleanup did not run: what is left is a repository with no refs
			}
			if got := refs(t, env, ours); got != before {
				t.Errorf("refs changed:\n%s\nnow:\n%s", before, got)
			}
			gittest.Fsck(t, env, ours)
		})
	}
}

// killUpstream serves dir (under base) the way kind says, with the stall
// st on its side, and returns the URL; env gains what git needs for it.
func killUpstream(t *testing.T, env *[]string, kind, base, dir string, st stall) string {
	t.Helper()
	switch kind {
	case "git":
		return fmt.Sprintf("git://127.0.0.1:%d/up.git", startDaemon(t, *env, base))
	case "ssh":
		*env = append(*env, "GIT_SSH_COMMAND="+fakeSSH(t, base), "GIT_SSH_VARIANT=ssh")
		return "ssh://git@fakehost:2222" + dir
	case "sshd":
		ssh, port := startSSHD(t, *env, t.TempDir(), "SetEnv GIT_CONFIG_GLOBAL="+st.global)
		u, err := user.Current()
		if err != nil {
			t.Skip("no user name: ", err)
		}
		*env = append(*env, "GIT_SSH_COMMAND="+ssh)
		url := "ssh://" + u.Username + "@127.0.0.1:" + strconv.Itoa(port) + dir
		if probe := gittest.Exec(t, *env, "", nil, "git", "ls-remote", url); probe.Code != 0 {
			t.Skipf("stock git cannot log in to the test's sshd: %s", probe.Stderr)
		}
		return url
	}
	return "file://" + dir
}

// killMidStall runs git with args in dir until upload-pack has stalled
// and the helper has a temporary file open in gitDir, kills what kill
// names — "git" (SIGKILL to git's pid alone), "parent" (SIGKILL to the git
// that runs the helper) or "helper" (SIGTERM) — and fails unless git and
// every process below it have ended within 5 seconds.
func killMidStall(t *testing.T, env []string, dir, gitDir string, st stall, kill string, args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(t.TempDir(), "fetch.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	var tree map[int]string
	t.Cleanup(func() {
		for pid := range tree {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		cmd.Process.Kill()
		<-exited
	})
	shown := func() string { b, _ := os.ReadFile(log.Name()); return string(b) }
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatalf("git %s ended before the stall:\n%s", args[0], shown())
		default:
		}
		if _, err := os.Stat(st.stalled); err == nil && len(tempFiles(t, gitDir)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stall with a temporary file:\n%s", shown())
		}
	}
	tree = descendants(cmd.Process.Pid)
	helper := 0
	for pid, c := range tree {
		if strings.Contains(c, "git-remote-durable ") {
			helper = pid
		}
	}
	if helper == 0 {
		t.Fatalf("no helper below git: %v", tree)
	}
	switch kill {
	case "git":
		err = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	case "parent":
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", helper))
		ppid, _ := strconv.Atoi(strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))[1])
		err = syscall.Kill(ppid, syscall.SIGKILL)
	case "helper":
		err = syscall.Kill(helper, syscall.SIGTERM)
	}
	if err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	for {
		var left []string
		for pid, c := range tree {
			if alive(pid) {
				left = append(left, fmt.Sprintf("%d %s", pid, c))
			}
		}
		select {
		case <-exited:
			if len(left) == 0 {
				t.Logf("%d processes under git (%v) ended %v after the kill; git said:\n%s", len(tree), tree,
					time.Since(killed).Round(time.Millisecond), shown())
				return
			}
		default:
		}
		if time.Since(killed) > 5*time.Second {
			t.Fatalf("5 s after the kill, still running: %v (git ended: %v)\n%s", left, cmd.ProcessState != nil, shown())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
