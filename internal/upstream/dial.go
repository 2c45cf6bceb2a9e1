package upstream

import "context"

// dialer is one way of reaching the upstream: it opens sessions with a
// service, and says what a session's first answer means for the next try.
// A Transport's byte stream is one (streamDialer), smart HTTP's requests
// the other (httpDialer); the scheme table says which a scheme takes.
type dialer interface {
	// open starts a session with service, asking for protocol version
	// (0, 1 or 2) the way the dialer does.
	open(service string, version int) (wire, error)
	// answered is told how reading the advertisement of the session w
	// went (err), and says whether to open the session again (with
	// credentials it now has) and else what the session's error is.
	answered(w wire, err error) (again bool, _ error)
}

// streamDialer reaches the upstream over a Transport: a command's or a
// socket's stream carries the whole session. It asks for no credentials
// (ssh asks its own).
type streamDialer struct {
	ctx context.Context
	tr  Transport
}

func (d *streamDialer) open(service string, version int) (wire, error) {
	c, err := d.tr.Connect(d.ctx, service, version)
	if err != nil {
		return nil, err
	}
	return newStream(c), nil
}

func (d *streamDialer) answered(_ wire, err error) (bool, error) { return false, err }
