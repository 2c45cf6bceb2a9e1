package remote

import (
	"encoding/binary"
	"math/rand/v2"
	"sync"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/object"
)

// closure checks, while a pack is unpacked, that what arrived is connected:
// every object that an object of the pack points at is in the pack, of the
// type the link says (a commit's tree a tree, its parents commits, a tree's
// directories trees and files blobs, a tag's object of the tag's "type"),
// and every wanted object arrived. This is what lets the helper answer
// connectivity-ok to a clone, as git's index-pack
// --check-self-contained-and-connected does. As there, a link to an object
// outside the pack (one in the repository already, a clone with
// --reference) is not checked but left to git: the helper does not claim
// connectivity, and git's own walk reads the object and its type. Memory
// grows with the number of objects received; reserve, when set, is told
// of it.
//
// A clone of real history points at the same objects again and again (each
// version of a directory lists all its entries), so the links of an object
// are first looked up, without the lock, in its worker's small cache of
// ids known to be recorded with that type; only the others reach the
// shared set.
type closure struct {
	reserve func(n int64)
	format  object.Format
	seed    uint64    // odd; spreads ids over a recent cache
	walks   sync.Pool // of *walk, one per worker in use

	mu       sync.Mutex
	ids      *idSet // each id received or pointed at
	bad      bool   // links that did not parse, or types that disagree
	reserved int64  // bytes reserve was told of
}

// kind is what the closure knows of an id: the object's type (from the
// object itself or from the first link to it), and whether it arrived.
type kind uint8

const arrived kind = 0x80

func (k kind) typ() object.Type { return object.Type(k &^ arrived) }

func newClosure(f object.Format) *closure {
	c := &closure{format: f, seed: rand.Uint64() | 1, ids: newIDSet(f)}
	c.walks.New = func() any { return &walk{seed: c.seed} }
	return c
}

// add records an object of the pack; it is unpack.Options.Object, called
// from the unpacker's workers.
func (c *closure) add(id object.ID, typ object.Type, data []byte) {
	if typ == object.Blob {
		c.mu.Lock()
		c.record(id, kind(typ)|arrived)
		c.mu.Unlock()
		return
	}
	w := c.walks.Get().(*walk)
	links, err := fsck.AppendLinks(w.links[:0], typ, data, c.format)
	// The links not in the cache, moved to the front; by index, as a
	// Link is 40 bytes to copy.
	n := 0
	for i := range links {
		if w.known(&links[i].ID, links[i].Type) {
			continue
		}
		if n != i {
			links[n] = links[i]
		}
		n++
	}
	fresh := links[:n]
	c.mu.Lock()
	if err != nil {
		c.bad = true
	}
	c.record(id, kind(typ)|arrived)
	for i := range fresh {
		c.record(fresh[i].ID, kind(fresh[i].Type))
	}
	c.mu.Unlock()
	w.remember(&id, typ)
	for i := range fresh {
		w.remember(&fresh[i].ID, fresh[i].Type)
	}
	w.links = links[:0]
	if cap(links) > maxPooledLinks {
		w.links = nil
	}
	c.walks.Put(w)
}

// record notes an id received, or pointed at, with the type k says; a
// type other than the one already known for the id makes the pack bad: a
// link to an object of the wrong type is not a link. c.mu must be held.
func (c *closure) record(id object.ID, k kind) {
	if id.Size() != c.format.Size() {
		c.bad = true
		return
	}
	seen := c.ids.get(id)
	switch {
	case seen == 0:
	case seen.typ() != k.typ():
		c.bad = true
		return
	case seen&arrived != 0 || k&arrived == 0:
		return
	}
	c.ids.set(id, k)
	if n := c.ids.bytes(); c.reserve != nil && n != c.reserved {
		// The set grew: the old slots and the new were both held while it
		// did, and the new stay.
		c.reserve(n - c.reserved)
		c.reserved = n
	}
}

// release gives back to reserve what the closure told it of; the closure
// is not to be used afterwards.
func (c *closure) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reserve != nil && c.reserved > 0 {
		c.reserve(-c.reserved)
	}
	c.ids, c.reserved = nil, 0
}

// connected reports whether the pack is self-contained and connected once
// it is in: every link parsed, every object pointed at and every wanted
// one arrived, and each link named its object's type.
func (c *closure) connected(wants []object.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bad {
		return false
	}
	ok := true
	c.ids.all(func(k kind) bool {
		ok = k&arrived != 0
		return ok
	})
	if !ok {
		return false
	}
	for _, w := range wants {
		if c.ids.get(w)&arrived == 0 {
			return false
		}
	}
	return true
}

// A walk is what a worker reuses from one object to the next: the slice
// of links, and a direct-mapped cache of ids recorded in closure.ids with
// their types. An id found in the cache with the type a link says is
// recorded with that type; a miss says nothing.
type walk struct {
	links  []fsck.Link
	seed   uint64
	recent [1 << recentBits]object.ID
	types  [1 << recentBits]object.Type
}

const (
	recentBits     = 12
	maxPooledLinks = 1 << 14 // links kept for reuse, at most
)

func (w *walk) slot(id *object.ID) int {
	b := id.Bytes()
	if len(b) < 8 {
		return 0
	}
	return int((binary.LittleEndian.Uint64(b) * w.seed) >> (64 - recentBits))
}

func (w *walk) known(id *object.ID, t object.Type) bool {
	i := w.slot(id)
	return w.recent[i] == *id && w.types[i] == t
}

func (w *walk) remember(id *object.ID, t object.Type) {
	i := w.slot(id)
	w.recent[i], w.types[i] = *id, t
}
