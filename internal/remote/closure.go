package remote

import (
	"sync"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// closure checks, while a pack is unpacked, that what arrived is connected:
// every object that an object of the pack points at is in the pack or
// already in the store, and every wanted object arrived or was there. This
// is what lets the helper answer connectivity-ok to a clone, as git's
// index-pack --check-self-contained-and-connected does. Memory grows with
// the number of objects received.
type closure struct {
	format object.Format

	mu      sync.Mutex
	seen    map[object.ID]struct{}
	missing map[object.ID]struct{} // pointed at, not seen (yet)
	bad     bool                   // an object whose links did not parse
}

func newClosure(f object.Format) *closure {
	return &closure{format: f, seen: map[object.ID]struct{}{}, missing: map[object.ID]struct{}{}}
}

// add records an object of the pack; it is unpack.Options.Object, called
// from the unpacker's workers.
func (c *closure) add(id object.ID, typ object.Type, data []byte) {
	var links []fsck.Link
	var err error
	if typ != object.Blob {
		links, err = fsck.Links(typ, data, c.format)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.bad = true
	}
	c.seen[id] = struct{}{}
	delete(c.missing, id)
	for _, l := range links {
		if _, ok := c.seen[l.ID]; !ok {
			c.missing[l.ID] = struct{}{}
		}
	}
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
	has := func(id object.ID) bool {
		if _, ok := c.seen[id]; ok {
			return true
		}
		ok, err := store.Has(id)
		return ok && err == nil
	}
	for id := range c.missing {
		if !has(id) {
			return false
		}
	}
	for _, w := range wants {
		if !has(w) {
			return false
		}
	}
	return true
}
