package pack

import (
	"container/list"
	"sync"

	"github.com/git-durable/git-durable/object"
)

// BaseCache keeps objects that Files resolved, by pack and offset, within a
// bound in bytes, least recently used out first: the objects met on the
// way down a delta chain are inflated and applied once, and the next
// object on the same chain starts from the nearest one cached. It is git's
// delta base cache (core.deltaBaseCacheLimit). One cache may serve several
// Files, from any number of goroutines.
type BaseCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // front = most recently used
	items map[baseKey]*list.Element
}

type baseKey struct {
	f   *File
	off int64
}

type baseEntry struct {
	key  baseKey
	typ  object.Type
	data []byte
}

// NewBaseCache returns a cache of at most max bytes of object data.
func NewBaseCache(max int64) *BaseCache {
	return &BaseCache{max: max, order: list.New(), items: map[baseKey]*list.Element{}}
}

// get returns the object cached for the entry of f at off; a nil cache
// has nothing.
func (c *BaseCache) get(f *File, off int64) (object.Type, []byte, bool) {
	if c == nil {
		return object.Bad, nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[baseKey{f, off}]
	if !ok {
		return object.Bad, nil, false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*baseEntry)
	return e.typ, e.data, true
}

// put caches an object unless it would take more than a quarter of the
// cache; a nil cache keeps nothing.
func (c *BaseCache) put(f *File, off int64, typ object.Type, data []byte) {
	if c == nil || int64(len(data)) > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := baseKey{f, off}
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(&baseEntry{k, typ, data})
	c.size += int64(len(data))
	for c.size > c.max {
		el := c.order.Back()
		e := el.Value.(*baseEntry)
		c.order.Remove(el)
		delete(c.items, e.key)
		c.size -= int64(len(e.data))
	}
}
