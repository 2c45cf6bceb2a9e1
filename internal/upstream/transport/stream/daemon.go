package stream

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// Daemon returns the git:// transport: a TCP connection to the daemon,
// then the request line git sends ("git-upload-pack /path\0host=<host>\0",
// host and path as CheckDaemon gave them to the address, "\0version=2\0"
// after it for protocol v2), then the session over the connection.
// Cancelling the context closes the connection.
func Daemon(a *transport.Address) Connector {
	return &daemonTransport{ep: a, host: a.DaemonHost, path: a.DaemonPath}
}

// daemonTransport connects to a git daemon.
type daemonTransport struct {
	ep         *transport.Address
	host, path string
	trace      io.Writer // takes a copy of the request line, where set
}

// withTrace is the transport copying its request line to w.
func (t *daemonTransport) withTrace(w io.Writer) Connector {
	c := *t
	c.trace = w
	return &c
}

// Connect connects and sends the request line.
func (t *daemonTransport) Connect(ctx context.Context, service string, version int) (Conn, error) {
	port := t.ep.Port
	if port == 0 {
		port = transport.DaemonPort
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
	var w io.Writer = c
	if t.trace != nil {
		w = io.MultiWriter(c, t.trace)
	}
	if _, err := pktline.WriteString(w, req); err != nil {
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
