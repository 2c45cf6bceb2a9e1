package remote

import (
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"unsafe"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// closure checks, while a pack is unpacked, that what arrived is connected:
// every object that an object of the pack points at is in the pack or
// already in the store, and every wanted object arrived or was there. This
// is what lets the helper answer connectivity-ok to a clone, as git's
// index-pack --check-self-contained-and-connected does. Memory grows with
// the number of objects received; reserve, when set, is told of it.
//
// A clone of real history points at the same objects again and again (each
// version of a directory lists all its entries), so the links of an object
// are first looked up, without the lock, in its worker's small cache of
// ids known to be recorded; only the others reach the shared set.
type closure struct {
	format  object.Format
	reserve func(n int64)
	seed    uint64    // odd; spreads ids over a recent cache
	walks   sync.Pool // of *walk, one per worker in use

	mu       sync.Mutex
	ids      map[object.ID]bool // received (true), or only pointed at (false)
	bad      bool               // an object whose links did not parse
	unsaid   int64              // ids added since reserve was last told
	reserved int64              // bytes reserve was told of
}

// perID is what an id in closure.ids holds: key and value, twice over for
// the room that map growth leaves.
const perID = 2 * int64(unsafe.Sizeof(object.ID{})+1)

func newClosure(f object.Format) *closure {
	c := &closure{format: f, seed: rand.Uint64() | 1, ids: map[object.ID]bool{}}
	c.walks.New = func() any { return &walk{seed: c.seed} }
	return c
}

// add records an object of the pack; it is unpack.Options.Object, called
// from the unpacker's workers.
func (c *closure) add(id object.ID, typ object.Type, data []byte) {
	if typ == object.Blob {
		c.mu.Lock()
		c.record(id, true)
		c.mu.Unlock()
		return
	}
	w := c.walks.Get().(*walk)
	links, err := fsck.AppendLinks(w.links[:0], typ, data, c.format)
	fresh := links[:0]
	for _, l := range links {
		if !w.known(&l.ID) {
			fresh = append(fresh, l)
		}
	}
	c.mu.Lock()
	if err != nil {
		c.bad = true
	}
	c.record(id, true)
	for _, l := range fresh {
		c.record(l.ID, false)
	}
	c.mu.Unlock()
	w.remember(&id)
	for i := range fresh {
		w.remember(&fresh[i].ID)
	}
	w.links = links[:0]
	if cap(links) > maxPooledLinks {
		w.links = nil
	}
	c.walks.Put(w)
}

// record notes an id received, or pointed at if it is not known yet.
// c.mu must be held.
func (c *closure) record(id object.ID, received bool) {
	if seen, ok := c.ids[id]; ok && (seen || !received) {
		return
	} else if !ok {
		c.unsaid++
	}
	c.ids[id] = received
	if c.reserve != nil && c.unsaid >= 1024 {
		c.reserve(c.unsaid * perID)
		c.reserved += c.unsaid * perID
		c.unsaid = 0
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

// connected reports whether nothing is missing once the pack is in: the
// objects pointed at but not received, and the wanted ones, must be in the
// store.
func (c *closure) connected(store *loose.Store, wants []object.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bad {
		return false
	}
	inStore := func(id object.ID) bool {
		ok, err := store.Has(id)
		return ok && err == nil
	}
	for id, received := range c.ids {
		if !received && !inStore(id) {
			return false
		}
	}
	for _, w := range wants {
		if !c.ids[w] && !inStore(w) {
			return false
		}
	}
	return true
}

// A walk is what a worker reuses from one object to the next: the slice
// of links, and a direct-mapped cache of ids recorded in closure.ids. An
// id found in the cache is recorded; a miss says nothing.
type walk struct {
	links  []fsck.Link
	seed   uint64
	recent [1 << recentBits]object.ID
}

const (
	recentBits     = 12
	maxPooledLinks = 1 << 14 // links kept for reuse, at most
)

func (w *walk) slot(id *object.ID) *object.ID {
	b := id.Bytes()
	if len(b) < 8 {
		return &w.recent[0]
	}
	return &w.recent[(binary.LittleEndian.Uint64(b)*w.seed)>>(64-recentBits)]
}

func (w *walk) known(id *object.ID) bool { return *w.slot(id) == *id }

func (w *walk) remember(id *object.ID) { *w.slot(id) = *id }
