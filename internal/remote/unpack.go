package remote

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// received is what a fetch batch left in the repository.
type received struct {
	connected bool           // the objects were verified to be connected
	lock      string         // the .keep of a kept pack, for git to remove
	stats     objstore.Stats // for the batch's line (account), once the fetch is done
}

// unpack writes the pack stream in into the repository through the
// project's unpacker, with the durability policy of the repository's
// settings (batch unless configured otherwise: a writeout per object, one
// flush after the last rename). A pack of at least the unpack limit is kept
// as one pack with its index instead of loose objects, and so is every pack
// of a promisor remote, marked as a promisor pack. When it returns,
// every object is durable; its line of statistics is the caller's to
// write (account), once what follows the pack is done, with rcv.stats.
// Connectivity is checked only when git asked.
// With fetch.fsckObjects (or transfer.fsckObjects) every object is checked
// first, as git's index-pack --strict does: a refusal fails the fetch.
// heal, when set, repairs the delta bases of the repository the pack needs
// and cannot read (see healer).
func (h *helper) unpack(in io.Reader, wants []object.ID, heal func([]object.ID) error) (rcv received, err error) {
	r, err := h.repository()
	if err != nil {
		return rcv, err
	}
	limit, strict, err := h.checks(r)
	if err != nil {
		return rcv, err
	}
	run, err := h.begin(r)
	if err != nil {
		return rcv, err
	}
	defer run.End()
	opts := run.Options(mask.Writer{W: h.errw}, &unpack.Keep{File: true, Message: keepMessage()})
	opts.UnpackLimit, opts.Strict, opts.Heal = limit, strict, heal
	pack := in // what the unpacker reads: in, or a reader that peeked at its header
	if h.set.promisor() {
		opts.UnpackLimit, opts.Keep.Promisor = 0, true
		if pack, opts.Keep.PromisorText, err = h.promisorText(in, r.Config); err != nil {
			return rcv, err
		}
	}
	var cl *closure
	if h.set.checkConn {
		cl = newClosure(r.Format)
		cl.reserve = cli.ReserveMemory
		defer cl.release()
		opts.Object = cl.add
	}
	if h.set.progress && h.set.verbosity > 0 {
		opts.Progress = run.Progress(h.errw)
		opts.Receiving, opts.Resolving = run.KeptProgress(h.errw)
	}
	res, err := unpack.Run(h.ctx, pack, run.Store, run.Policy, opts)
	if err = h.runErr(in, run, res, err); err != nil {
		return rcv, err
	}
	rcv.stats = run.Stats(res)
	run.Done()
	rcv.lock = res.KeepPath
	if cl != nil {
		rcv.connected = cl.connected(wants)
	}
	return rcv, nil
}

// checks are the unpack limit and the fsck options of a fetch into r.
func (h *helper) checks(r *repo.Repo) (limit uint32, strict *fsck.Options, err error) {
	limit, err = r.Config.UnpackLimit(h.set.cloning)
	if err != nil {
		return 0, nil, err
	}
	strict, err = r.Config.FsckOptions(r.Format, h.env.Getenv, h.errw)
	if err != nil {
		return 0, nil, err
	}
	if h.set.promisor() && strict != nil {
		strict.Promised = true
	}
	return limit, strict, nil
}

// runErr is what a fetch reports of a run of the unpacker over in, with
// its stats accounted: a connection cut mid-pack, junk after the pack, a
// bad pack, or nil.
func (h *helper) runErr(in io.Reader, run *objstore.Run, res unpack.Result, err error) error {
	if p, ok := in.(*upstream.Pack); ok && err != nil {
		if cut := p.Cut(err); cut != err {
			// The connection went away mid-pack: not a bad pack.
			h.account(run.Stats(res), cut)
			return cut
		}
	}
	if err == nil && len(res.Rest) > 0 {
		// What the unpacker read past the trailer: nothing of it is
		// used, and a pack kept is not pinned by its .keep.
		if res.KeepPath != "" {
			os.Remove(res.KeepPath)
		}
		h.account(run.Stats(res), upstream.ErrJunk)
		return upstream.ErrJunk
	}
	if err != nil {
		h.account(run.Stats(res), err)
		return &packError{err: err}
	}
	return nil
}

// keepMessage is what git's fetch-pack writes into the .keep of a pack it
// keeps until the refs are updated.
func keepMessage() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("fetch-pack %d on %s", os.Getpid(), host)
}

// packError is a failure of the pack the upstream sent (or of writing
// it); the unpacker's error says what.
type packError struct{ err error }

func (e *packError) Error() string { return e.err.Error() }

func (e *packError) Unwrap() error { return e.err }

// isPackError reports whether err came from the unpacker.
func isPackError(err error) (*packError, bool) {
	var pe *packError
	return pe, errors.As(err, &pe)
}
