package remote

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// revWalk is git rev-list --parents walking from the tips of
// the repository's own (refs whose values the upstream did not advertise)
// down to what the advertised ones reach, newest first (by commit date,
// the order of git's negotiators): the commits the upstream may lack. Its
// tips come on its standard input, so the refs are not read again; it is
// read only as far as the negotiation needs, and stopped there.
type revWalk struct {
	ctx    context.Context
	stop   context.CancelFunc
	cmd    *exec.Cmd
	out    *bufio.Reader
	stderr bytes.Buffer
	done   bool
}

// startWalk starts the walk from from, not below not.
func startWalk(ctx context.Context, from, not []object.ID) (*revWalk, error) {
	ctx, stop := context.WithCancel(ctx)
	w := &revWalk{ctx: ctx, stop: stop}
	var in bytes.Buffer
	for _, id := range from {
		in.WriteString(id.String() + "\n")
	}
	for _, id := range not {
		in.WriteString("^" + id.String() + "\n")
	}
	w.cmd = exec.CommandContext(ctx, "git", "rev-list", "--parents", "--stdin")
	w.cmd.Stdin, w.cmd.Stderr = &in, &w.stderr
	out, err := w.cmd.StdoutPipe()
	if err == nil {
		err = w.cmd.Start()
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("cannot run git: %w", err)
	}
	w.out = bufio.NewReaderSize(out, 64<<10)
	return w, nil
}

// next reads the next commit of the walk and its parents; io.EOF at its
// end.
func (w *revWalk) next() (object.ID, []object.ID, error) {
	for !w.done {
		line, err := w.out.ReadString('\n')
		if err != nil {
			return object.ID{}, nil, err
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		id, err := object.ParseID(f[0])
		if err != nil {
			continue
		}
		parents := make([]object.ID, 0, len(f)-1)
		for _, p := range f[1:] {
			if pid, err := object.ParseID(p); err == nil {
				parents = append(parents, pid)
			}
		}
		return id, parents, nil
	}
	return object.ID{}, nil, io.EOF
}

// wait ends the walk that stopped with err, and returns why it failed:
// nil where it read to its end.
func (w *revWalk) wait(err error) error {
	if w.done {
		return nil
	}
	w.done = true
	werr := w.cmd.Wait()
	if ge, ok := repo.AsGitError(w.cmd.Args[1:], werr, w.stderr.String()); ok {
		return ge
	}
	switch {
	case werr != nil:
		return werr
	case err != io.EOF:
		return err
	}
	return nil
}

// close stops the walk where it is.
func (w *revWalk) close() {
	w.stop()
	if !w.done {
		w.wait(nil)
	}
}

// read reads the walk up to its next have; nil at its end, or once every
// commit it still has to reach is common. The repository's own tips,
// sent first, are not sent again.
func (n *negotiator) read() *object.ID {
	for {
		if n.given > 0 && n.live == 0 {
			n.ended = true // what is left to walk is common
			n.walk.close()
			return nil
		}
		id, parents, err := n.walk.next()
		if err != nil {
			n.ended = true
			if err = n.walk.wait(err); err != nil && n.given == 0 {
				n.fallback()
			}
			return nil
		}
		n.given++
		if n.take(id, parents) && !n.sent[id] {
			return &id
		}
	}
}

// mark records what is known of a commit not yet read, keeping count of
// those not common.
func (n *negotiator) mark(id object.ID, m mark) {
	if old, ok := n.pending[id]; ok && !old.common {
		n.live--
	}
	if !m.common {
		n.live++
	}
	n.pending[id] = m
}

// take decides whether the commit id the walk read is sent, and marks its
// parents accordingly: skipping.c's ttl (a sent commit's parents skip
// orig*3/2+1 commits, a skipped one's one fewer than it did, the longer
// skip winning where lines meet; a root is sent all the same), or
// default.c's common ancestry.
func (n *negotiator) take(id object.ID, parents []object.ID) bool {
	m, ok := n.pending[id]
	if ok {
		delete(n.pending, id)
		if !m.common {
			n.live--
		}
	}
	send := !m.common && !n.except[id] && (!n.skipping || m.ttl == 0 || len(parents) == 0)
	for _, p := range parents {
		pm, seen := n.pending[p]
		switch {
		case m.common:
			pm.common = true
		case n.skipping:
			orig, ttl := m.orig, m.ttl-1
			if m.ttl == 0 {
				orig = m.orig*3/2 + 1
				ttl = orig
			}
			if seen && pm.orig >= orig {
				continue
			}
			pm.orig, pm.ttl = orig, ttl
		case seen:
			continue
		}
		n.mark(p, pm)
	}
	if send {
		n.parents[id] = parents
	}
	return send
}

// Ack marks the parents of a commit the upstream has as common: the walk
// does not send them, nor what they reach.
func (n *negotiator) Ack(id object.ID) {
	if n.walk == nil {
		n.acked[id] = true
	}
	for _, p := range n.parents[id] {
		m := n.pending[p]
		m.common = true
		n.mark(p, m)
	}
}
