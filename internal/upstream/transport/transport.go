package transport

import (
	"bufio"
	"context"
	"io"
)

// Transport is one session with a service of the upstream (git-upload-pack
// or git-receive-pack), whatever carries it: a command's or a socket's byte
// stream (package stream: file, ssh, git://) or smart HTTP's requests
// (package http). The protocol layer above speaks through it alone.
type Transport interface {
	// Handshake starts service, asking for protocol version (0, 1 or 2)
	// the way the transport does, and reads the service's advertisement
	// with read. A transport that can do better than fail — HTTP asking
	// git credential for what a server wants — reads it again. The end
	// of ctx stops the session.
	Handshake(ctx context.Context, service string, version int, read Advertised) error
	// Request sends a whole request and returns the reader of its
	// answer; last says that nothing more will be sent (a push: the
	// service reads the pack to its end).
	Request(req io.Reader, last bool) (*bufio.Reader, error)
	// Explain says what a dialogue that broke with err means, by how the
	// service ended where the transport can tell (the last line a
	// command wrote on stderr); an ERR line explains itself.
	Explain(err error) error
	// URL is the address the session reached: where a redirect moved
	// it, else the one it was opened for.
	URL() *Address
	// Persistent reports whether one connection carries the whole
	// session (a stream), so that the end of an answer's bytes is the end
	// of the connection, not of one request's answer (HTTP).
	Persistent() bool
	// Close ends the session and waits for the service to end; its
	// failure, in what it last said, is the error.
	Close() error
}

// RequestTracer is a Transport whose session opens with a request of its
// own before the service answers (git://'s request line): TraceRequest
// gives it where to copy that request's bytes, for GIT_TRACE_PACKET.
type RequestTracer interface {
	TraceRequest(w io.Writer)
}

// Advertised reads a service's advertisement from in and returns the
// protocol version the service answered with.
type Advertised func(in *bufio.Reader) (version int, err error)

// Dial opens a Transport for each session with one upstream; sessions
// opened by one Dial share what it set up (an HTTP client, its cookies and
// credentials).
type Dial func() Transport

// Agent is the name the helper gives itself to the upstream: the
// User-Agent of HTTP requests, the agent capability of a request.
const Agent = "git-remote-durable"
