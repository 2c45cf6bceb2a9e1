package remote

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// tip is a commit a ref points at (through a tag), with its commit date.
type tip struct {
	id   object.ID
	date int64
}

// tipsFormat lists a ref's object and type, for a tag the object and type
// it points at, and the commit date of either.
const tipsFormat = "--format=%(objectname) %(objecttype) %(*objectname) %(*objecttype) %(committerdate:unix) %(*committerdate:unix)"

// readTips lists the commits the repository's refs point at, reading the
// refs once (git for-each-ref); a tag of a tag is left out.
func readTips(ctx context.Context) ([]tip, error) {
	out, err := repo.Git(ctx, nil, "for-each-ref", tipsFormat)
	if err != nil {
		return nil, err
	}
	var tips []tip
	for len(out) > 0 {
		var line []byte
		line, out, _ = bytes.Cut(out, []byte("\n"))
		f := strings.Split(string(line), " ")
		if len(f) != 6 {
			continue
		}
		hex, date := f[0], f[4]
		if f[1] != "commit" {
			hex, date = f[2], f[5]
			if f[3] != "commit" {
				continue
			}
		}
		id, err := object.ParseID(hex)
		if err != nil {
			continue
		}
		d, _ := strconv.ParseInt(date, 10, 64)
		tips = append(tips, tip{id, d})
	}
	return tips, nil
}

// revWalk is git rev-list --parents --timestamp walking from the tips of
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
	w.cmd = exec.CommandContext(ctx, "git", "rev-list", "--parents", "--timestamp", "--stdin")
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

// next reads the next commit of the walk, its date and its parents;
// io.EOF at its end.
func (w *revWalk) next() (tip, []object.ID, error) {
	for !w.done {
		line, err := w.out.ReadString('\n')
		if err != nil {
			return tip{}, nil, err
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		date, derr := strconv.ParseInt(f[0], 10, 64)
		id, err := object.ParseID(f[1])
		if derr != nil || err != nil {
			continue
		}
		parents := make([]object.ID, 0, len(f)-2)
		for _, p := range f[2:] {
			if pid, err := object.ParseID(p); err == nil {
				parents = append(parents, pid)
			}
		}
		return tip{id, date}, parents, nil
	}
	return tip{}, nil, io.EOF
}

// wait ends the walk that stopped with err, and returns why it failed:
// nil where it read to its end.
func (w *revWalk) wait(err error) error {
	if w.done {
		return nil
	}
	w.done = true
	werr := w.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(werr, &ee):
		return &repo.GitError{Args: w.cmd.Args[1:], Code: ee.ExitCode(), Stderr: w.stderr.String()}
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
		t, parents, err := n.walk.next()
		if err != nil {
			n.ended = true
			if err = n.walk.wait(err); err != nil && n.given == 0 {
				n.fallback()
			}
			return nil
		}
		n.given++
		if n.take(t.id, parents) && !n.sent[t.id] {
			return &t.id
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
