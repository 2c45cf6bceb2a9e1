package upstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/internal/proc"
)

// daemonPort is git daemon's port.
const daemonPort = 9418

// newDaemon returns the git:// transport: a TCP connection to the daemon,
// then the request line git sends ("git-upload-pack /path\0host=<host>\0",
// host and path as daemonTarget gave them to the address, "\0version=2\0"
// after it for protocol v2), then the session over the connection.
// Cancelling the context closes the connection.
func newDaemon(a *Address) Transport {
	return &daemonTransport{ep: a, host: a.daemonHost, path: a.daemonPath}
}

// daemonTransport connects to a git daemon.
type daemonTransport struct {
	ep         *Address
	host, path string
}

// Connect connects and sends the request line.
func (t *daemonTransport) Connect(ctx context.Context, service string, version int) (Conn, error) {
	port := t.ep.Port
	if port == 0 {
		port = daemonPort
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(strings.Trim(t.ep.Host, "[]"), strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() { c.Close() })
	req := fmt.Sprintf("%s %s\x00host=%s\x00", service, t.path, t.host)
	if version > 0 {
		// git's connect.c: "version=<n>" after a second NUL, which older
		// daemons ignore, and which git daemon hands upload-pack as
		// GIT_PROTOCOL.
		req += fmt.Sprintf("\x00version=%d\x00", version)
	}
	if _, err := pktline.WriteString(c, req); err != nil {
		c.Close()
		return nil, err
	}
	return daemonConn{c}, nil
}

// daemonConn is a connection to a git daemon.
type daemonConn struct{ net.Conn }

// CloseWrite ends the connection's sending side, as closing a command's
// input does.
func (c daemonConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
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
// describe the local repository (git's local_repo_env), with GIT_PROTOCOL
// for a protocol version, as git runs them; the end of the context stops
// them.
func newLocal(path string) Transport {
	return &commandTransport{command: func(ctx context.Context, service string, version int) (*exec.Cmd, error) {
		cmd := command(ctx, "git", strings.TrimPrefix(service, "git-"), path)
		cmd.Env = proc.WithoutRepoEnv(os.Environ())
		if version > 0 {
			cmd.Env = append(cmd.Env, protocolEnv(version))
		}
		return cmd, nil
	}}
}
