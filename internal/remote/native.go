package remote

import (
	"context"
	"errors"
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
// protocol v0; host and path as daemonTarget gives them), then the session
// over the connection. Cancelling ctx closes the connection.
func newDaemon(ctx context.Context, host, path string) transport.Transport {
	return &execTransport{dial: func(service string, ep *transport.Endpoint) (net.Conn, error) {
		port := ep.Port
		if port == 0 {
			port = daemonPort
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(strings.Trim(ep.Host, "[]"), strconv.Itoa(port)))
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ctx, func() { c.Close() })
		req := fmt.Sprintf("%s %s\x00host=%s\x00", service, path, host)
		if err := pktline.NewEncoder(c).EncodeString(req); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	}}
}

// daemonTarget is the host and path git's connect.c puts in the request
// for a git:// address: the address decoded whole as git's url_decode does
// it (net/url also decodes "%00", which git leaves as it is: a NUL would
// end the path and start another "host=" for the daemon), the host and
// port as the address spells them (without a user), the path from the '/'
// after them, "/~user/…" without its '/'. A newline in either would end
// the request line, and git refuses it.
func daemonTarget(addr string) (host, path string, err error) {
	_, rest, _ := strings.Cut(urlDecode(addr, false), "://")
	start, end := 0, 0 // connect.c host_end: an IPv6 address's ':' and '/' are not the path's
	if i := strings.Index(rest, "@["); i >= 0 {
		start = i + 1
	}
	if strings.HasPrefix(rest[start:], "[") {
		if j := strings.IndexByte(rest[start:], ']'); j >= 0 {
			end = start + j + 1
		}
	}
	slash := strings.IndexByte(rest[end:], '/')
	if slash < 0 {
		return "", "", errors.New("no path specified; see 'git help pull' for valid url syntax")
	}
	host, path = rest[:end+slash], rest[end+slash:]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if strings.HasPrefix(path, "/~") {
		path = path[1:]
	}
	if strings.ContainsRune(host+path, '\n') {
		return "", "", errors.New("newline is forbidden in git:// hosts and repo paths")
	}
	return host, path, nil
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
