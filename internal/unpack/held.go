package unpack

import (
	"fmt"
	"sync"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/object"
)

// held keeps the commits, trees and tags of a --strict unpack in memory
// until they and what they point at have been checked, as git does.
type held struct {
	mu   sync.Mutex
	objs map[object.ID]*heldObject
}

type heldObject struct {
	typ     object.Type
	data    []byte
	open    bool // being checked: guards against a (hostile) cycle
	written bool
}

func newHeld() *held { return &held{objs: map[object.ID]*heldObject{}} }

func (h *held) add(id object.ID, typ object.Type, data []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.objs[id]; ok {
		return &StrictError{Msg: fmt.Sprintf("object %s tried to add buffer twice!", id)}
	}
	h.objs[id] = &heldObject{typ: typ, data: data}
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
func (u *unpacker) writeHeld() error {
	for _, e := range u.entries {
		if _, ok := u.held.objs[e.id]; ok && e.done {
			if err := u.checkHeld(e.id); err != nil {
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
	if u.report(problems) {
		return &StrictError{Msg: "fsck error in pack objects", Problems: problems}
	}
	return nil
}

// report logs fsck problems and says whether any is an error.
func (u *unpacker) report(problems []fsck.Problem) bool {
	bad := false
	for _, p := range problems {
		level := "warning"
		if p.Severity == fsck.Error {
			level, bad = "error", true
		}
		u.opts.Log(level, p.String())
	}
	return bad
}

// checkHeld is git's check_object for a held object: fsck it, check what it
// points at (recursively for held objects), then write it.
func (u *unpacker) checkHeld(id object.ID) error {
	o := u.held.objs[id]
	if o.written || o.open {
		return nil
	}
	o.open = true
	if u.report(u.opts.Strict.Check(id, o.typ, o.data, u.fmt)) {
		return &StrictError{Msg: "fsck error in packed object"}
	}
	links, err := fsck.Links(o.typ, o.data, u.fmt)
	if err != nil {
		return &StrictError{Msg: fmt.Sprintf("Error on reachable objects of %s", id)}
	}
	for _, l := range links {
		if err := u.checkLink(l); err != nil {
			return err
		}
	}
	o.written = true
	return u.write(id, o.typ, o.data)
}

// checkLink checks one object a held object points at.
func (u *unpacker) checkLink(l fsck.Link) error {
	if o, ok := u.held.objs[l.ID]; ok {
		if o.typ != l.Type {
			return &StrictError{Msg: "object type mismatch"}
		}
		return u.checkHeld(l.ID)
	}
	if k, ok := u.ids[l.ID]; ok && u.entries[k].done {
		if u.entries[k].typ != l.Type {
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
