package unpack

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/object"
)

// packCheck is Strict for a kept pack, the way git index-pack --strict
// does it: nothing is held back, since nothing of the pack is visible
// before it is published. Each commit, tree and tag is checked as soon as
// it is resolved and its data goes its way; only the ids it links to stay,
// with the types the links say they have (two links may disagree: one of
// them is wrong). When the pack is complete, every link must be an object
// of the pack or of the repository, of that type, and
// the .gitmodules and .gitattributes blobs are checked (fsck_finish).
// Memory grows with the number of objects linked to, as git's does, not
// with their size.
type packCheck struct {
	fmt  object.Format
	msgs io.Writer

	mu    sync.Mutex // guards opts (not safe for concurrent use) and links
	opts  *fsck.Options
	links map[object.ID]typeSet
}

// typeSet holds object types, bit 1<<t for type t.
type typeSet uint8

func newPackCheck(opts *fsck.Options, f object.Format, msgs io.Writer) *packCheck {
	return &packCheck{fmt: f, msgs: msgs, opts: opts, links: map[object.ID]typeSet{}}
}

// object checks one resolved object, from any worker. Blobs are left to
// finish, as git unpack-objects --strict leaves them: only a blob a tree
// names .gitmodules or .gitattributes is checked, whatever the order of
// the pack.
func (c *packCheck) object(id object.ID, typ object.Type, data []byte) error {
	if typ == object.Blob {
		return nil
	}
	links, err := strictLinks(id, typ, data, c.fmt)
	var se *StrictError
	if errors.As(err, &se) {
		return se
	}
	var pe *fsck.ParseError
	errors.As(err, &pe)
	c.mu.Lock()
	defer c.mu.Unlock()
	if report(c.msgs, c.opts.Check(id, typ, data, c.fmt)) {
		return &StrictError{Msg: "fsck error in packed object"}
	}
	if pe != nil {
		// A tree git's walk cannot parse: it reports the reason and walks
		// the entries before the bad one, or fails if there are none.
		if m := pe.GitMessage(id); m != "" {
			fmt.Fprintf(c.msgs, "error: %s\n", m)
		}
		if !pe.Partial {
			return &StrictError{Msg: fmt.Sprintf("Not all child objects of %s are reachable", id)}
		}
	}
	for _, l := range links {
		c.links[l.ID] |= 1 << l.Type
	}
	return nil
}

// checkPack runs the checks that need the whole pack (git index-pack's
// check_objects, then fsck_finish). A link's target outside the pack must
// be in the repository; its type is checked unless the link says blob,
// whose data is not read just for that. A promisor pack's links are not
// checked: its objects may name what a filter left out, and git's
// fetch-pack checks such a pack with index-pack --fsck-objects, not
// --strict.
func (u *resolver) checkPack() error {
	c := u.check
	if u.opts.Keep.Promisor {
		c.links = nil
	}
	var bad []object.ID
	why := map[object.ID]string{}
	for id, wants := range c.links {
		_, got, ok := u.located(id)
		switch {
		case ok:
		case wants == 1<<object.Blob:
			if has, err := u.store.Has(id); err != nil || !has {
				got = object.Bad
			} else {
				got = object.Blob
			}
		default:
			if t, _, err := u.store.Read(id); err == nil {
				got = t
			}
		}
		if got == object.Bad {
			why[id] = fmt.Sprintf("did not receive expected object %s", id)
		} else if wants == 1<<got {
			continue
		}
		for want := object.Commit; want <= object.Tag && why[id] == ""; want++ {
			if want != got && wants&(1<<want) != 0 {
				why[id] = fmt.Sprintf("object %s: expected type %s, found %s", id, want, got)
			}
		}
		bad = append(bad, id)
	}
	if len(bad) > 0 {
		sort.Slice(bad, func(i, j int) bool { return bad[i].Compare(bad[j]) < 0 })
		return &StrictError{Msg: why[bad[0]]}
	}
	c.links = nil
	problems := c.opts.Finish(func(id object.ID) (object.Type, []byte, bool) {
		typ, data, err := u.dest.read(id)
		return typ, data, err == nil
	})
	if report(u.opts.Messages, problems) {
		return &StrictError{Msg: "fsck error in pack objects"}
	}
	return nil
}
