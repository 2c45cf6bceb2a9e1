package remote

import (
	"bufio"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// upload is an upload-pack session whose advertisement has been read.
type upload struct {
	sess transport.UploadPackSession
	refs *packp.AdvRefs
	// streamed: the refs went to the sink openUpload was given, and refs
	// holds only the capabilities, HEAD and the shallow lines.
	streamed bool
}

// receive is a receive-pack session whose advertisement has been read.
type receive struct {
	sess transport.ReceivePackSession
	refs *packp.AdvRefs
}

// openUpload opens an upload-pack session and reads its advertisement; an
// empty upstream gives a nil advertisement and no session. A session of the
// project's own transports hands the refs to sink, when there is one,
// instead of keeping them.
func (h *helper) openUpload(sink refSink) (*upload, error) {
	streamed := false
	if h.tap != nil {
		h.tap.used = false
		defer func() { h.tap.sink = nil }()
	}
	s, ar, err := h.advertise(func(tr transport.Transport) (transport.Session, error) {
		s, err := tr.NewUploadPackSession(h.ep, h.auth)
		if ss, ok := s.(interface{ setSink(refSink) }); ok && err == nil && sink != nil {
			ss.setSink(sink)
			streamed = true
		} else if h.tap != nil {
			h.tap.sink = sink // the HTTP session's GET of info/refs
		}
		return s, err
	})
	if h.tap != nil && h.tap.used {
		streamed = true
	}
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := checkFormat(ar, h.url); err != nil {
		s.Close()
		return nil, err
	}
	return &upload{sess: s.(transport.UploadPackSession), refs: ar, streamed: streamed}, nil
}

// openReceive opens a receive-pack session and reads its advertisement.
func (h *helper) openReceive() (*receive, error) {
	s, ar, err := h.advertise(func(tr transport.Transport) (transport.Session, error) {
		return tr.NewReceivePackSession(h.ep, h.auth)
	})
	if err != nil {
		return nil, err
	}
	if err := checkFormat(ar, h.url); err != nil {
		s.Close()
		return nil, err
	}
	return &receive{sess: s.(transport.ReceivePackSession), refs: ar}, nil
}

// checkFormat refuses an upstream that names objects with SHA-256: go-git
// v5 reads and writes only SHA-1 on the wire.
func checkFormat(ar *packp.AdvRefs, url string) error {
	for _, f := range ar.Capabilities.Get(capability.ObjectFormat) {
		if f != "sha1" {
			return formatError(url, f)
		}
	}
	return nil
}

// formatError refuses an upstream whose objects are not named with SHA-1.
func formatError(url, format string) error {
	return fmt.Errorf("'%s' uses the %s object format; git-remote-durable can fetch and push only sha1 repositories (its wire protocol is go-git v5's)", url, format)
}

// list answers "list" and "list for-push" with the upstream's refs. The
// upload-pack session stays open for the first fetch batch, the
// receive-pack session for the push. Refs of the project's own transports
// are written as they are read, in the upstream's order; go-git's HTTP
// sessions give a map, written sorted.
func (h *helper) list(forPush bool) error {
	w := bufio.NewWriterSize(h.out, 64<<10)
	if h.set.objectFormat {
		w.WriteString(":object-format sha1\n")
	}
	var ar *packp.AdvRefs
	if forPush {
		if h.rp != nil {
			h.rp.sess.Close()
		}
		rp, err := h.openReceive()
		if err != nil {
			return err
		}
		h.rp, ar = rp, rp.refs
	} else {
		if h.up != nil {
			h.up.sess.Close()
		}
		lw := &listWriter{w: w, url: h.url, funny: h.funnyRef}
		up, err := h.openUpload(lw.ref)
		if err != nil {
			return err
		}
		h.up = up
		switch {
		case up != nil && up.streamed:
			lw.end()
		case up != nil:
			ar = up.refs
		}
	}
	if ar != nil {
		writeRefs(w, ar, !forPush, h.funnyRef)
	}
	w.WriteString("\n")
	return w.Flush()
}

// funnyRef warns of a ref name the upstream advertised that the helper does
// not pass on to git.
func (h *helper) funnyRef(name string) {
	fmt.Fprintf(h.errw, "warning: ignoring funny ref '%s' from '%s'\n", maskName(name), h.url)
}
