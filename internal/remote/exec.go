package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// execTransport runs git-upload-pack or git-receive-pack through a command
// (the user's ssh, or git itself for a local repository) or on a git daemon
// over TCP, and speaks protocol v0 over its streams with go-git's public
// codecs; go-git's own session code is internal, reads the advertisement a
// system call per line and keeps every ref in a map.
type execTransport struct {
	command func(service string, ep *transport.Endpoint) (*exec.Cmd, error)
	// dial, instead of command, connects to a git daemon and sends the
	// request line.
	dial func(service string, ep *transport.Endpoint) (net.Conn, error)
}

// NewUploadPackSession starts upload-pack.
func (t *execTransport) NewUploadPackSession(ep *transport.Endpoint, _ transport.AuthMethod) (transport.UploadPackSession, error) {
	return t.start(ep, transport.UploadPackServiceName)
}

// NewReceivePackSession starts receive-pack.
func (t *execTransport) NewReceivePackSession(ep *transport.Endpoint, _ transport.AuthMethod) (transport.ReceivePackSession, error) {
	return t.start(ep, transport.ReceivePackServiceName)
}

func (t *execTransport) start(ep *transport.Endpoint, service string) (*execSession, error) {
	if t.dial != nil {
		c, err := t.dial(service, ep)
		if err != nil {
			return nil, err
		}
		return &execSession{conn: c, service: service, stderr: &tail{max: 4096},
			stdin: closeWriter{c}, stdout: bufio.NewReaderSize(c, 64<<10)}, nil
	}
	cmd, err := t.command(service, ep)
	if err != nil {
		return nil, err
	}
	s := &execSession{cmd: cmd, service: service, stderr: &tail{max: 4096}}
	cmd.Stderr = s.stderr
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.stdout = bufio.NewReaderSize(out, 64<<10)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", cmd.Path, err)
	}
	return s, nil
}

// execSession is one upload-pack or receive-pack run.
type execSession struct {
	cmd     *exec.Cmd
	conn    net.Conn // instead of cmd: a git daemon's connection
	service string
	stdin   io.WriteCloser
	stdout  *bufio.Reader
	stderr  *tail
	adv     *packp.AdvRefs
	sink    refSink               // takes the refs while the advertisement is read
	used    bool                  // a request was sent
	report  func(io.Reader) error // reads receive-pack's report (setReport)

	once    sync.Once
	waitErr error
}

// AdvertisedReferences reads the advertisement.
func (s *execSession) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.AdvertisedReferencesContext(context.Background())
}

// AdvertisedReferencesContext reads the advertisement. An empty repository
// is transport.ErrEmptyRemoteRepository for upload-pack; a command that
// ends without one fails with what it printed on stderr.
func (s *execSession) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	if s.adv != nil {
		return s.adv, nil
	}
	var sink refSink
	refs := 0
	if s.sink != nil {
		sink = func(ar *packp.AdvRefs, name []byte, id plumbing.Hash) error {
			refs++
			return s.sink(ar, name, id)
		}
	}
	ar, err := readAdvertisement(s.stdout, sink)
	receive := s.service == transport.ReceivePackServiceName
	switch {
	case errors.Is(err, errEmptyAdvertisement) && receive:
		s.adv = ar
		return ar, nil
	case errors.Is(err, errEmptyAdvertisement):
		return nil, transport.ErrEmptyRemoteRepository
	case err != nil:
		return nil, s.failure(err)
	case !receive && refs == 0 && ar.IsEmpty():
		return nil, transport.ErrEmptyRemoteRepository
	}
	s.adv = ar
	return ar, nil
}

// setSink makes the session hand each advertised ref to sink instead of
// keeping it (see refSink).
func (s *execSession) setSink(sink refSink) { s.sink = sink }

// failure explains a broken dialogue by how the command ended.
func (s *execSession) failure(err error) error {
	var el *pktline.ErrorLine
	if errors.As(err, &el) {
		return err
	}
	s.stdin.Close()
	s.wait()
	if strings.Contains(err.Error(), "object-format=") {
		return err // an advertisement go-git cannot read: checkFormat says why
	}
	msg := s.stderr.lastLine()
	switch {
	case strings.Contains(msg, "does not appear to be a git repository"), strings.Contains(msg, "not found"),
		strings.Contains(msg, "No such file or directory"):
		return fmt.Errorf("%w: %s", transport.ErrRepositoryNotFound, msg)
	case msg != "":
		return errors.New(strings.TrimPrefix(msg, "fatal: "))
	}
	return err
}

// UploadPack sends the request (wants, shallows, deepening, all haves, done:
// one round, as go-git negotiates) and returns the response, whose Read
// gives the pack stream (still multiplexed when a side-band was asked for).
func (s *execSession) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	s.used = true
	if err := req.UploadRequest.Encode(s.stdin); err != nil {
		return nil, s.failure(err)
	}
	if err := req.UploadHaves.Encode(s.stdin, true); err != nil {
		return nil, s.failure(err)
	}
	if err := pktline.NewEncoder(s.stdin).Encodef("done\n"); err != nil {
		return nil, s.failure(err)
	}
	resp := packp.NewUploadPackResponse(req)
	if err := resp.Decode(sessionReader{s}); err != nil {
		return nil, s.failure(err)
	}
	return resp, nil
}

// setReport makes ReceivePack hand the report (side-band demultiplexed)
// to decode instead of go-git's decoder, and return no report of its own.
func (s *execSession) setReport(decode func(io.Reader) error) { s.report = decode }

// ReceivePack sends the commands and the pack and reads the report.
func (s *execSession) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	s.used = true
	if err := req.Encode(s.stdin); err != nil {
		return nil, s.failure(err)
	}
	s.stdin.Close()
	if !req.Capabilities.Supports(capability.ReportStatus) {
		return nil, s.Close()
	}
	r := demux(s.stdout, req)
	if s.report != nil {
		if err := s.report(r); err != nil {
			s.Close()
			return nil, err
		}
		return nil, s.Close()
	}
	report := packp.NewReportStatus()
	if err := report.Decode(r); err != nil {
		return nil, s.failure(err)
	}
	if err := s.Close(); err != nil {
		return report, err
	}
	return report, report.Error()
}

// Close ends the command: a flush when no request was sent (upload-pack
// then exits), then the end of its input; a command that does not exit
// within 10 seconds is killed (within killDelay once the helper's context
// has ended: see command). A non-zero exit is an error.
func (s *execSession) Close() error {
	if !s.used && s.adv != nil {
		s.stdin.Write(pktline.FlushPkt)
	}
	s.stdin.Close()
	return s.wait()
}

func (s *execSession) wait() error {
	s.once.Do(func() {
		if s.conn != nil {
			s.conn.Close()
			return
		}
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case err := <-done:
			s.waitErr = err
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			s.waitErr = <-done
		}
		if errors.Is(s.waitErr, exec.ErrWaitDelay) {
			s.waitErr = nil // it exited 0; something it started keeps its stderr
		}
		if s.waitErr != nil {
			if msg := s.stderr.lastLine(); msg != "" {
				s.waitErr = errors.New(strings.TrimPrefix(msg, "fatal: "))
			}
		}
	})
	return s.waitErr
}

// sessionReader is the session's output, closed by closing the session.
type sessionReader struct{ s *execSession }

func (r sessionReader) Read(p []byte) (int, error) { return r.s.stdout.Read(p) }

func (r sessionReader) Close() error { return r.s.Close() }

// closeWriter ends the connection's sending side on Close, as closing a
// command's input does.
type closeWriter struct{ c net.Conn }

func (w closeWriter) Write(p []byte) (int, error) { return w.c.Write(p) }

func (w closeWriter) Close() error {
	if cw, ok := w.c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// tail keeps the last bytes written to it (a command's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// lastLine returns the last line that is not empty.
func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
