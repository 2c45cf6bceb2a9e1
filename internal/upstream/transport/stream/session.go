package stream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// Conn is a service's byte stream: a command's input and output, or a
// socket.
type Conn interface {
	io.Reader // what the service says
	io.Writer // what it reads
	// CloseWrite ends what the service reads.
	CloseWrite() error
	// Close ends the stream and waits for the service to end; a failure
	// of the service, in what it last said on stderr, is its error.
	Close() error
}

// Connector starts a service of the upstream and gives its byte stream: a
// command (the user's ssh, or git itself for a local path) or a git
// daemon's connection.
type Connector interface {
	// Connect starts service ("git-upload-pack" or "git-receive-pack"),
	// asking for protocol version (0, 1 or 2) the way the connector does.
	// The end of ctx stops it.
	Connect(ctx context.Context, service string, version int) (Conn, error)
}

// Dial returns the sessions over c's streams with the upstream at a.
func Dial(c Connector, a *transport.Address) transport.Dial {
	return func() transport.Transport { return &session{c: c, addr: a} }
}

// session is a Transport over a Conn: the advertisement, the requests and
// their answers follow each other on the one stream.
type session struct {
	c      Connector
	addr   *transport.Address
	conn   Conn
	in     *bufio.Reader
	opened bool // the advertisement was read
	used   bool // a request was sent
	ended  bool // the service's input was closed
	v2     bool // protocol v2: a flush ends the session after any command
	done   bool
	err    error
	trace  io.Writer // takes the connector's own request, where set
}

// tracing is a Connector that can copy the request it opens a connection
// with to a writer.
type tracing interface {
	withTrace(w io.Writer) Connector
}

// TraceRequest copies the connector's own request (git://'s request line)
// to w as the session opens.
func (s *session) TraceRequest(w io.Writer) { s.trace = w }

func (s *session) Handshake(ctx context.Context, service string, version int, read transport.Advertised) error {
	connector := s.c
	if t, ok := connector.(tracing); ok && s.trace != nil {
		connector = t.withTrace(s.trace)
	}
	c, err := connector.Connect(ctx, service, version)
	if err != nil {
		return err
	}
	s.conn, s.in, s.opened = c, bufio.NewReaderSize(c, 64<<10), true
	v, err := read(s.in)
	s.v2 = err == nil && v == 2
	return err
}

func (s *session) Request(req io.Reader, last bool) (*bufio.Reader, error) {
	s.used = true
	if _, err := io.Copy(s.conn, req); err != nil {
		return nil, s.Explain(err)
	}
	if last {
		s.ended = true
		s.conn.CloseWrite()
	}
	return s.in, nil
}

func (s *session) URL() *transport.Address { return s.addr }

func (s *session) Persistent() bool { return true }

// Explain explains a broken dialogue by what the command said last on
// stderr: git's "does not appear to be a git repository" is a repository
// not found, any other line the failure in its words. An ERR line, and an
// error that says itself in git's words (an advertisement of an object
// format the helper cannot read), are their own explanation.
func (s *session) Explain(err error) error {
	var (
		el *pktline.ErrorLine
		d  transport.Describer
	)
	if errors.As(err, &el) || s.conn == nil {
		return err
	}
	if !s.ended {
		s.ended = true
		s.conn.CloseWrite()
	}
	s.Close()
	if errors.As(err, &d) {
		return err
	}
	msg := ""
	if t, ok := s.conn.(interface{ lastLine() string }); ok {
		msg = t.lastLine()
	}
	switch {
	case strings.Contains(msg, "does not appear to be a git repository"), strings.Contains(msg, "not found"),
		strings.Contains(msg, "No such file or directory"):
		return fmt.Errorf("%w: %s", transport.ErrNotFound, msg)
	case msg != "":
		return errors.New(strings.TrimPrefix(msg, "fatal: "))
	}
	return err
}

// Close ends the service's input, with a flush first when no request was
// sent (upload-pack then exits) and after any over v2 (the end of the
// session, where a command would come), and waits for it.
func (s *session) Close() error {
	if s.done || s.conn == nil {
		return s.err
	}
	s.done = true
	if !s.ended {
		if !s.used && s.opened || s.v2 {
			pktline.WriteFlush(s.conn)
		}
		s.conn.CloseWrite()
	}
	s.err = s.conn.Close()
	return s.err
}
