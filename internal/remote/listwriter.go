package remote

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// writeRefs lists an advertisement held in maps (receive-pack's) through a
// listWriter, sorted by name:
// HEAD first when head is set, then every ref, each annotated tag followed
// by "<peeled> <tag>^{}".
func writeRefs(w *bufio.Writer, adv *upstream.Advertisement, head bool, funny func(string)) {
	l := &listWriter{w: w, funny: funny, noHead: !head}
	for _, s := range adv.Symrefs {
		l.Symref(s[0], s[1])
	}
	if head && adv.Head != nil {
		l.Ref([]byte("HEAD"), *adv.Head)
	}
	names := make([]string, 0, len(adv.Refs))
	for name := range adv.Refs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		l.Ref([]byte(name), adv.Refs[name])
		if p, ok := adv.Peeled[name]; ok {
			l.Ref([]byte(name+"^{}"), p)
		}
	}
	l.end()
}

// listWriter writes refs to git as the advertisement is read, each valid
// ref and peeled tag in the upstream's order; a name that is not valid
// (validRef) is never written, funny is told of it instead, and a symref
// to such a name is dropped, as git drops it.
//
// HEAD is written as "@<target> HEAD" only when the upstream advertised
// both HEAD and its symref target: git's transport-helper.c resolves
// "@<target>" against the whole list once it has read it
// (get_refs_list_using_list, resolve_remote_symref), and a target missing
// from the list leaves HEAD without an id: the clone asks for the null id,
// or writes it to HEAD and leaves a directory that is no repository. A
// target that is never advertised gives "<id> HEAD" (git clone detaches
// HEAD there, or takes a branch at the same id). Whether the target comes is known only
// when it does, so from the first line on, while a symref waits, the refs
// are held back (up to maxHeld bytes) and written after the HEAD line, in
// git's order; past maxHeld they go on, and HEAD is written where its
// target is found, or at the end.
type listWriter struct {
	w     *bufio.Writer
	funny func(string)
	// tips, when not nil, takes what each ref listed points at (see
	// advertisedTip).
	tips    map[object.ID]advertisedTip
	last    object.ID // the value of the last ref listed, for its "^{}"
	noHead  bool      // list for-push: no HEAD line
	started bool
	// formats: git asked for ":object-format <name>" before the refs
	// (option object-format); formatDone: it was written.
	formats, formatDone bool

	headDone bool       // the HEAD line was written, or none will be
	target   []byte     // HEAD's symref target, while the HEAD line waits
	targetIn bool       // the target was listed
	headID   *object.ID // HEAD's advertised id, while the HEAD line waits
	held     []byte     // lines listed while the HEAD line waits
	late     bool       // held outgrew maxHeld: HEAD will not be first
}

// maxHeld bounds the lines held back until HEAD's target is listed: some
// 17,000 refs, far more than come before a default branch in most lists.
const maxHeld = 1 << 20

// start begins the list.
func (l *listWriter) start() {
	if !l.started {
		l.started = true
		l.headDone = l.noHead
	}
}

// Format writes ":object-format <name>" when git asked for it, once:
// transport-helper.c reads the ids of the lines after it in that format.
func (l *listWriter) Format(f object.Format) {
	if l.formats && !l.formatDone {
		l.formatDone = true
		fmt.Fprintf(l.w, ":object-format %s\n", f)
	}
}

// Symref takes a symbolic ref of the advertisement: HEAD's target is the
// first valid one, a name that is not valid is never written.
func (l *listWriter) Symref(from, to string) {
	l.start()
	if from != "HEAD" || l.headDone || l.target != nil {
		return
	}
	if !validRef(to) {
		l.funny(to)
		return
	}
	l.target = []byte(to)
}

// Ref writes one advertised ref.
func (l *listWriter) Ref(name []byte, id object.ID) error {
	l.start()
	if l.tips != nil {
		if t, ok := l.tips[l.last]; ok && bytes.HasSuffix(name, []byte("^{}")) {
			t.peeled = id
			l.tips[l.last] = t
		} else if _, ok := l.tips[id]; !ok {
			l.tips[id] = advertisedTip{peeled: id, order: len(l.tips)}
		}
		l.last = id
	}
	switch {
	case string(name) == "HEAD":
		switch {
		case l.headDone || l.headID != nil:
		case l.target == nil:
			fmt.Fprintf(l.w, "%s HEAD\n", id)
			l.headDone = true
		default:
			l.headID = &id
			if l.targetIn {
				l.writeHead()
			}
		}
		return nil
	case !validRef(bytes.TrimSuffix(name, []byte("^{}"))):
		l.funny(string(name))
		return nil
	}
	waiting := !l.headDone && l.target != nil
	if waiting && bytes.Equal(name, l.target) {
		l.targetIn = true
		if l.headID != nil {
			l.writeHead()
			waiting = false
		}
	}
	b := l.w.AvailableBuffer()
	if waiting && !l.late {
		b = l.held
	}
	b = hex.AppendEncode(b, id.Bytes())
	b = append(append(append(b, ' '), name...), '\n')
	if !waiting || l.late {
		_, err := l.w.Write(b)
		return err
	}
	l.held = b
	if len(l.held) > maxHeld {
		l.late = true
		return l.flushHeld()
	}
	return nil
}

// end writes what waited for the end of the list: the HEAD line if its
// target never came (by id, when HEAD was advertised), and the lines held
// back for it.
func (l *listWriter) end() error {
	if !l.headDone && l.headID != nil { // a target that never came
		l.target = nil // no symref to give git: HEAD by id
		return l.writeHead()
	}
	return l.flushHeld()
}

// writeHead writes HEAD, as a symref when there is a target, then the lines
// held back for it.
func (l *listWriter) writeHead() error {
	if l.target != nil {
		fmt.Fprintf(l.w, "@%s HEAD\n", l.target)
	} else {
		fmt.Fprintf(l.w, "%s HEAD\n", l.headID)
	}
	l.headDone = true
	return l.flushHeld()
}

func (l *listWriter) flushHeld() error {
	_, err := l.w.Write(l.held)
	l.held = nil
	return err
}
