package unpack

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/object"
)

// held keeps the commits, trees and tags of a --strict unpack in memory
// until they and what they point at have been checked, as git does.
type held struct {
	mu   sync.Mutex
	fmt  object.Format
	objs map[object.ID]*heldObject
}

type heldObject struct {
	typ      object.Type
	data     []byte
	links    []fsck.Link
	linksErr error // a tree git's walk cannot fully parse
	open     bool  // being checked: guards against a (hostile) cycle
	written  bool
}

func newHeld(f object.Format) *held { return &held{fmt: f, objs: map[object.ID]*heldObject{}} }

// add holds an object back. Like git, it parses commits and tags as they
// arrive and refuses one it cannot parse, or an object held twice.
func (h *held) add(id object.ID, typ object.Type, data []byte) error {
	links, err := strictLinks(id, typ, data, h.fmt)
	var se *StrictError
	if errors.As(err, &se) {
		return se
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.objs[id]; ok {
		return &StrictError{Msg: fmt.Sprintf("object %s tried to add buffer twice!", id)}
	}
	h.objs[id] = &heldObject{typ: typ, data: data, links: links, linksErr: err}
	return nil
}

func (h *held) get(id object.ID) (object.Type, []byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if o, ok := h.objs[id]; ok {
		return o.typ, o.data, true
	}
	return object.Bad, nil, false
}

// writeHeld checks and writes every held object in pack order (git's
// write_rest), then runs the checks that need all objects (fsck_finish).
func (u *resolver) writeHeld() error {
	for k := range int32(u.entries.len()) {
		if id := u.entries.id(k); u.held.objs[id] != nil && u.entries.at(k).done {
			if err := u.checkHeld(id); err != nil {
				return err
			}
		}
	}
	problems := u.opts.Strict.Finish(func(id object.ID) (object.Type, []byte, bool) {
		if typ, data, ok := u.held.get(id); ok {
			return typ, data, true
		}
		typ, data, err := u.store.Read(id)
		return typ, data, err == nil
	})
	if report(u.opts.Messages, problems) {
		return &StrictError{Msg: "fsck error in pack objects"}
	}
	return nil
}

// report prints fsck problems as git does and says whether any is an error.
func report(w io.Writer, problems []fsck.Problem) bool {
	bad := false
	for _, p := range problems {
		io.WriteString(w, p.Stderr())
		bad = bad || p.Severity == fsck.Error
	}
	return bad
}

// checkHeld is git's check_object for a held object: fsck it, check what it
// points at (recursively for held objects), then write it.
func (u *resolver) checkHeld(id object.ID) error {
	o := u.held.objs[id]
	if o.written || o.open {
		return nil
	}
	o.open = true
	if report(u.opts.Messages, u.opts.Strict.Check(id, o.typ, o.data, u.fmt)) {
		return &StrictError{Msg: "fsck error in packed object"}
	}
	var pe *fsck.ParseError
	if errors.As(o.linksErr, &pe) {
		// A tree git's walk cannot parse: it reports the reason and checks
		// the entries before the bad one, or gives up if there are none.
		if m := pe.GitMessage(id); m != "" {
			fmt.Fprintf(u.opts.Messages, "error: %s\n", m)
		}
		if !pe.Partial {
			return &StrictError{Msg: fmt.Sprintf("Error on reachable objects of %s", id)}
		}
	}
	for _, l := range o.links {
		if err := u.checkLink(l); err != nil {
			return err
		}
	}
	o.written = true
	return u.write(id, o.typ, o.data)
}

// checkLink checks one object a held object points at.
func (u *resolver) checkLink(l fsck.Link) error {
	if o, ok := u.held.objs[l.ID]; ok {
		if o.typ != l.Type {
			return &StrictError{Msg: "object type mismatch"}
		}
		return u.checkHeld(l.ID)
	}
	if _, typ, ok := u.located(l.ID); ok {
		if typ != l.Type {
			return &StrictError{Msg: "object type mismatch"}
		}
		return nil
	}
	typ, _, err := u.store.Read(l.ID)
	if err != nil || typ != l.Type {
		return &StrictError{Msg: "object of unexpected type"}
	}
	return nil
}

// strictLinks parses what an object links to, as git's --strict does when
// the object arrives: a commit or tag it cannot parse is refused (a
// *StrictError in git's words); a tree that does not parse comes back with
// its *fsck.ParseError, for the caller to report when the tree is checked.
func strictLinks(id object.ID, typ object.Type, data []byte, f object.Format) ([]fsck.Link, error) {
	links, err := fsck.Links(typ, data, f)
	var pe *fsck.ParseError
	if errors.As(err, &pe) && typ != object.Tree {
		se := &StrictError{Msg: "invalid " + typ.String()}
		if m := pe.GitMessage(id); m != "" {
			se.Lines = []string{m}
		}
		return nil, se
	}
	return links, err
}
