package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// A real sshd for one test, where one can be started.

// startSSHD starts sshd on 127.0.0.1 for the current user with a key made
// for the test, and with the lines of extra added to its configuration, and
// returns the GIT_SSH_COMMAND that logs in with it and the port. It skips
// the test, saying why, when sshd cannot run here.
func startSSHD(t *testing.T, env []string, dir string, extra ...string) (string, int) {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/sshd"); serr != nil {
			t.Skip("sshd is not installed (Debian: openssh-server): ", err)
		}
		sshd = "/usr/sbin/sshd"
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh is not installed: ", err)
	}
	if os.Geteuid() == 0 {
		// OpenSSH's privilege separation directory, made by its package's service.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Skip("cannot create /run/sshd: ", err)
		}
	}
	for _, k := range []string{"host", "id"} {
		gittest.Exec(t, env, dir, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k))
	}
	pub, err := os.ReadFile(filepath.Join(dir, "id.pub"))
	if err != nil {
		t.Skip("ssh-keygen failed: ", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	conf := fmt.Sprintf("Port %d\nListenAddress 127.0.0.1\nHostKey %s\nAuthorizedKeysFile %s\nPidFile %s\n"+
		"StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"+
		"PubkeyAuthentication yes\nPermitRootLogin prohibit-password\n",
		port, filepath.Join(dir, "host"), filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "sshd.pid"))
	for _, l := range extra {
		conf += l + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	inGroup(cmd)
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Skip("sshd does not start: ", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { killGroup(cmd); <-exited })
	if !listening(port, exited) {
		t.Skip("sshd does not listen: ", errb.String())
	}
	ssh := "ssh -i " + filepath.Join(dir, "id") + " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR"
	return ssh, port
}
