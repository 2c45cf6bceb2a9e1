package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/report"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// Options configures Run beyond the process's streams. The zero value is
// what the command uses.
type Options struct {
	// Dial, when set, replaces the transport chosen from the URL's
	// protocol (tests).
	Dial transport.Dial
}

// helper is one session with git.
type helper struct {
	ctx  context.Context
	env  proc.Env
	opts Options
	in   *bufio.Reader
	out  io.Writer
	errw io.Writer // stderr, with secrets scrubbed
	red  *transport.Redactor

	url    string                // the address without credentials, for messages
	remote *upstream.Remote      // once the address is known
	trace  *upstream.PacketTrace // GIT_TRACE_PACKET, when set
	trace2 *report.Trace2        // GIT_TRACE2_EVENT, when set
	cfg    repo.Config           // read lazily
	cfgd   bool

	set   settings
	local *repo.Repo        // the repository, once needed
	store *objstore.Session // its objects, once needed (objects)
	up    *upstream.Upload  // the upload-pack session list opened
	// advertised is what the refs of the upload-pack's list point at:
	// the negotiator's known common tips.
	advertised map[object.ID]advertisedTip
	rp         *upstream.Receive // the receive-pack session list for-push opened
	hup        *hangup           // stops the helper when git goes away mid-command
	began      time.Time         // when the session began: the helper's start
	// line is the session's line (endSession), what git asked for and
	// what its batches and the settle did added up as they come.
	line      SessionStats
	checked   string     // what the crash check of the session found (sweep), for -v
	sought    []string   // the batch's "<id> <name>" lines, for a .promisor
	before    *repoState // the repository at git's first list, fetch or push
	shallowed bool       // the session wrote $GIT_DIR/shallow
	swept     bool       // no loose object is broken: the sweep says so
	ended     bool       // git ended the session with a blank line, not by going away
	// brokenType is the type the header of each broken object found
	// still says.
	brokenType map[object.ID]object.Type
}

// Run is git-remote-durable. args are the helper's arguments: the remote's
// name (or the URL as typed), then the URL. The dialogue with git runs on
// env.Stdin and env.Stdout until git ends it; messages go to env.Stderr.
// A failure is printed as one "fatal:" line (credentials removed) and
// returned as a *cli.ExitError, except an interruption, returned as is.
func Run(ctx context.Context, args []string, env proc.Env, opts Options) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	red := &transport.Redactor{}
	h := &helper{
		ctx: ctx, env: env, opts: opts, red: red, hup: newHangup(env.Stdin, cancel),
		in:         bufio.NewReaderSize(env.Stdin, maxLine),
		out:        env.Stdout,
		errw:       &scrubWriter{w: env.Stderr, r: red},
		set:        defaultSettings(),
		brokenType: map[object.ID]object.Type{},
		began:      time.Now(),
	}
	// An interruption must also end a wait for git's next command.
	stop := make(chan struct{})
	defer close(stop)
	if c, ok := env.Stdin.(io.Closer); ok {
		go func() {
			select {
			case <-ctx.Done():
				c.Close()
			case <-stop:
			}
		}()
	}
	err := h.start(args)
	if err == nil {
		h.checkStatsPath()
		err = h.loop()
	}
	if err == nil {
		h.settle()
		h.sayDurable()
	}
	h.hup.close()
	h.close()
	h.writeTrace2()
	msg, err := h.report(err)
	if _, usage := err.(*cli.UsageError); !usage {
		h.endSession(err, msg)
	}
	return err
}

// start reads the address from the arguments and checks it.
func (h *helper) start(args []string) error {
	if len(args) == 1 && args[0] == "-h" {
		return &cli.UsageError{Usage: Usage}
	}
	var addr string
	switch len(args) {
	case 2:
		addr = args[1]
	case 1:
		// remote.<name>.vcs=durable without a URL: git passes the name only.
		cfg, err := h.config()
		if err != nil {
			return err
		}
		e, ok := cfg.Get("remote." + args[0] + ".url")
		if !ok {
			return fmt.Errorf("remote '%s' has no URL", args[0])
		}
		addr = e.Value
	default:
		return errors.New("usage: git-remote-durable <remote> [<url>]")
	}
	h.url = transport.Anonymize(addr)
	h.trace = upstream.OpenPacketTrace(h.env.Getenv, h.errw, h.red.Scrub)
	h.trace2 = report.OpenTrace2(h.env.Getenv, h.errw)
	r, err := upstream.Open(h.ctx, addr, upstream.Options{
		Env: h.env, Config: h.config, Stderr: h.errw, Redactor: h.red, Dial: h.opts.Dial, Trace: h.trace, Trace2: h.trace2,
	})
	h.remote = r
	return err
}

// close ends the sessions still open, and closes the object store.
func (h *helper) close() {
	if h.up != nil {
		h.up.Close()
		h.up = nil
	}
	if h.rp != nil {
		h.rp.Close()
		h.rp = nil
	}
	if h.store != nil {
		h.store.Close()
		h.store = nil
	}
	h.trace.Close()
	h.trace = nil
}

// scrubWriter removes secrets from what is written through it.
type scrubWriter struct {
	w io.Writer
	r *transport.Redactor
}

// Write writes p with every known secret removed.
func (s *scrubWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, s.r.Scrub(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
