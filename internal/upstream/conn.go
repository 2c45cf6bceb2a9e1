package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"
)

// Transport starts a service of the upstream and gives its byte stream: a
// command (the user's ssh, or git itself for a local path) or a git
// daemon's connection. Options.Transport replaces the one the URL names.
type Transport interface {
	// Connect starts service ("git-upload-pack" or "git-receive-pack"),
	// asking for protocol version (0, 1 or 2) the way the transport does.
	// The end of ctx stops it.
	Connect(ctx context.Context, service string, version int) (Conn, error)
}

// Conn is a service's byte stream.
type Conn interface {
	io.Reader // what the service says
	io.Writer // what it reads
	// CloseWrite ends what the service reads.
	CloseWrite() error
	// Close ends the stream and waits for the service to end; a failure
	// of the service, in what it last said on stderr, is its error.
	Close() error
}

// wire carries one session with a service: its advertisement, then
// requests, each with its answer.
type wire interface {
	// advertisement returns the reader of the advertisement.
	advertisement() (*bufio.Reader, error)
	// send sends a whole request and returns the reader of its answer;
	// last says that nothing more will be sent (a push: the service reads
	// the pack to its end).
	send(req io.Reader, last bool) (*bufio.Reader, error)
	// fail explains a dialogue that broke with err, by how the service
	// ended when it can tell.
	fail(err error) error
	// close ends the session: its error is the service's failure.
	close() error
}

// stream is a session over a Conn: the advertisement, the requests and
// their answers follow each other on the one stream.
type stream struct {
	conn   Conn
	in     *bufio.Reader
	opened bool // the advertisement was read
	used   bool // a request was sent
	ended  bool // the service's input was closed
	v2     bool // protocol v2: a flush ends the session after any command
	done   bool
	err    error
}

func newStream(c Conn) *stream {
	return &stream{conn: c, in: bufio.NewReaderSize(c, 64<<10)}
}

func (s *stream) advertisement() (*bufio.Reader, error) {
	s.opened = true
	return s.in, nil
}

func (s *stream) send(req io.Reader, last bool) (*bufio.Reader, error) {
	s.used = true
	if _, err := io.Copy(s.conn, req); err != nil {
		return nil, s.fail(err)
	}
	if last {
		s.ended = true
		s.conn.CloseWrite()
	}
	return s.in, nil
}

// fail explains a broken dialogue by what the command said last on
// stderr: git's "does not appear to be a git repository" is a repository
// not found, any other line the failure in its words. An ERR line, and an
// advertisement of an object format the helper cannot read, are their own
// explanation.
func (s *stream) fail(err error) error {
	var (
		el *pktline.ErrorLine
		uf *unknownFormat
	)
	if errors.As(err, &el) {
		return err
	}
	if !s.ended {
		s.ended = true
		s.conn.CloseWrite()
	}
	s.close()
	if errors.As(err, &uf) {
		return err
	}
	msg := ""
	if t, ok := s.conn.(interface{ lastLine() string }); ok {
		msg = t.lastLine()
	}
	switch {
	case strings.Contains(msg, "does not appear to be a git repository"), strings.Contains(msg, "not found"),
		strings.Contains(msg, "No such file or directory"):
		return fmt.Errorf("%w: %s", errNotFound, msg)
	case msg != "":
		return errors.New(strings.TrimPrefix(msg, "fatal: "))
	}
	return err
}

// close ends the service's input, with a flush first when no request was
// sent (upload-pack then exits) and after any over v2 (the end of the
// session, where a command would come), and waits for it.
func (s *stream) close() error {
	if s.done {
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
