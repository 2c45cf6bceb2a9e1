package remote

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// daemonPort is git daemon's port.
const daemonPort = 9418

// newDaemon returns the git:// transport: a TCP connection to the daemon,
// the request line git sends ("git-upload-pack /path\0host=<host>\0",
// protocol v0), then the session over the connection. Cancelling ctx closes
// the connection.
func newDaemon(ctx context.Context) transport.Transport {
	return &execTransport{dial: func(service string, ep *transport.Endpoint) (net.Conn, error) {
		port := ep.Port
		if port == 0 {
			port = daemonPort
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(ep.Host, strconv.Itoa(port)))
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ctx, func() { c.Close() })
		host := ep.Host
		if ep.Port != 0 && ep.Port != daemonPort {
			host = net.JoinHostPort(ep.Host, strconv.Itoa(ep.Port))
		} else if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		req := fmt.Sprintf("%s %s\x00host=%s\x00", service, ep.Path, host)
		if err := pktline.NewEncoder(c).EncodeString(req); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	}}
}

// newLocal returns the transport for a repository on this machine: git
// upload-pack or receive-pack run on its path, without the variables that
// describe the local repository (git's local_repo_env), as git runs them;
// the end of ctx stops them.
func newLocal(ctx context.Context) transport.Transport {
	return &execTransport{command: func(service string, ep *transport.Endpoint) (*exec.Cmd, error) {
		cmd := command(ctx, "git", strings.TrimPrefix(service, "git-"), ep.Path)
		cmd.Env = withoutLocalRepoEnv(os.Environ())
		return cmd, nil
	}}
}

// killDelay is how long a command has to exit after SIGTERM before it is
// killed and its pipes closed.
const killDelay = time.Second

// command is exec.Command for a command that the end of ctx (an
// interruption, git gone) stops at once, the way git's cleanup stops its
// children: SIGTERM — git upload-pack then stops its pack-objects, ssh
// closes the connection — and if it has not exited killDelay later,
// SIGKILL and its pipes closed, so that a read waiting on them returns
// even when something it started still holds them.
func command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = killDelay
	return cmd
}

// localRepoEnv are the variables git clears for a local transport's
// command (environment.c local_repo_env).
var localRepoEnv = []string{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
	"GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
	"GIT_SHALLOW_FILE", "GIT_COMMON_DIR",
}

func withoutLocalRepoEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_")
		for _, l := range localRepoEnv {
			drop = drop || k == l
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
