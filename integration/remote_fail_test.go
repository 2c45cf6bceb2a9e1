package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/remote"
)

// TestRemoteFetchFailures fetches through a server that damages the pack
// on purpose: each failure must leave the repository as it was (refs,
// fsck), and the next fetch must complete the job.
func TestRemoteFetchFailures(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"corrupt", "fatal: bad pack from 'http://127.0.0.1:"},
		{"truncate", "fatal: bad pack from 'http://127.0.0.1:"},
		{"stall", "fatal: interrupted"}, // the helper gets SIGTERM
		{"stall", ""},                   // the helper gets SIGKILL: git exits silently
	} {
		t.Run(tc.mode+strconv.FormatBool(tc.want == ""), func(t *testing.T) {
			env := env(t)
			base := t.TempDir()
			dir := newUpstream(t, env, base, "up.git")
			tp := &tamper{next: httpBackend(t, env, base)}
			url := startHTTP(t, tp) + "/up.git"
			ours := filepath.Join(base, "ours")
			c, _ := durable(t, env, "", "clone", "durable::"+url, ours)
			mustRun(t, c, "clone")
			advance(t, env, dir, 3, "v300")
			before := refs(t, env, ours)

			tp.set(tc.mode)
			if tc.mode == "stall" {
				c = killMidFetch(t, env, ours, tp, tc.want == "")
			} else {
				var stats []remote.BatchStats
				c, stats = durable(t, env, ours, "fetch")
				// The failed batch is recorded, and what it wrote is durable.
				if len(stats) != 1 || stats[0].Error == "" || stats[0].Written > 0 && stats[0].HardwareFlush != 1 {
					t.Errorf("stats of the failed batch: %+v", stats)
				}
			}
			if tc.want == "" {
				if c.Code == 0 || strings.Contains(string(c.Stderr), "fatal:") && strings.Count(string(c.Stderr), "fatal:") > 1 {
					t.Fatalf("exit %d\n%s", c.Code, c.Stderr)
				}
				if got := refs(t, env, ours); got != before {
					t.Fatalf("refs changed")
				}
				gittest.Fsck(t, env, ours)
			} else {
				failed(t, env, c, ours, before, tc.want)
			}

			tp.set("")
			c, stats := durable(t, env, ours, "fetch")
			mustRun(t, c, "fetch after the failure")
			checkBatches(t, stats)
			gittest.Fsck(t, env, ours)
			if a, b := gittest.Git(t, env, dir, "rev-parse", "main", "v300"), gittest.Git(t, env, ours, "rev-parse", "origin/main", "v300"); a != b {
				t.Fatalf("the next fetch did not complete the job: %s vs %s", a, b)
			}
		})
	}
}

// killMidFetch runs git fetch, waits until the server has sent half of the
// pack and stalls, then kills the helper (SIGKILL, or SIGTERM).
func killMidFetch(t *testing.T, env []string, repo string, tp *tamper, hard bool) *gittest.Cmd {
	t.Helper()
	tp.mu.Lock()
	stalled := tp.stalled
	tp.mu.Unlock()
	done := make(chan *gittest.Cmd, 1)
	go func() { done <- gittest.Exec(t, env, repo, nil, "git", "fetch") }()
	select {
	case <-stalled:
	case c := <-done:
		t.Fatalf("fetch ended before the stall: exit %d\n%s", c.Code, c.Stderr)
	case <-time.After(30 * time.Second):
		t.Fatal("the server never stalled")
	}
	pid := helperPid(t, repo)
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Signal(sig)
	}
	if err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-done:
		return c
	case <-time.After(30 * time.Second):
		t.Fatal("git fetch did not end after the helper was killed")
	}
	return nil
}

// helperPid finds the git-remote-durable process working in repo (its
// working directory), started by this test's git fetch.
func helperPid(t *testing.T, repo string) int {
	t.Helper()
	want, _ := filepath.EvalSymlinks(repo)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		procs, _ := os.ReadDir("/proc")
		for _, p := range procs {
			pid, err := strconv.Atoi(p.Name())
			if err != nil {
				continue
			}
			exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
			cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
			if filepath.Base(exe) == "git-remote-durable" && cwd == want {
				return pid
			}
		}
	}
	t.Fatal("no git-remote-durable process found")
	return 0
}

// TestRemoteUnreachable fails to clone from upstreams that are not there:
// nothing listening, a missing repository, an ssh that cannot connect.
func TestRemoteUnreachable(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	newUpstream(t, env, base, "up.git")
	port := freePort(t)
	daemon := startDaemon(t, env, base)
	web := startHTTP(t, httpBackend(t, env, base))
	badSSH := filepath.Join(base, "bad-ssh")
	if err := os.WriteFile(badSSH, []byte("#!/bin/sh\necho 'ssh: connect to host nohost port 22: Connection refused' >&2\nexit 255\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, url, want string }{
		{"git-refused", fmt.Sprintf("git://127.0.0.1:%d/up.git", port), "fatal: unable to access 'git://127.0.0.1:"},
		{"http-refused", fmt.Sprintf("http://127.0.0.1:%d/up.git", port), "fatal: unable to access 'http://127.0.0.1:"},
		{"path-missing", filepath.Join(base, "nope.git"), "fatal: repository '" + filepath.Join(base, "nope.git") + "' not found"},
		{"git-missing", fmt.Sprintf("git://127.0.0.1:%d/nope.git", daemon), "fatal: remote error: no such repository: /nope.git"}, // git's words
		{"http-missing", web + "/nope.git", "fatal: repository '" + web + "/nope.git' not found"},
		{"ssh-refused", "ssh://nohost/x.git", "fatal: ssh: connect to host nohost port 22: Connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := append(env, "GIT_SSH_COMMAND="+badSSH, "GIT_SSH_VARIANT=ssh")
			dst := filepath.Join(t.TempDir(), "dst")
			c := gittest.Exec(t, env, "", nil, "git", "clone", "durable::"+tc.url, dst)
			failed(t, env, c, "", "", tc.want)
			if _, err := os.Stat(dst); err == nil {
				t.Error("a failed clone left its directory")
			}
		})
	}
}
