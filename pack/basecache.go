package pack

import (
	"container/list"
	"sync"

	"github.com/git-durable/git-durable/object"
)

// ObjectCache keeps objects by key within a bound in bytes, least recently
// used out first: git's delta base cache (core.deltaBaseCacheLimit). Each
// object counts its data and cachedCost for what keeping it costs beside
// (a cache of a million tiny objects is not a cache of their bytes); one
// that counts more than a quarter of the bound is not kept. Cached data is
// shared between callers and must not be modified. It is safe for any
// number of goroutines; a nil cache keeps nothing.
type ObjectCache[K comparable] struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // front = most recently used
	items map[K]*list.Element
}

type cachedObject[K comparable] struct {
	key  K
	typ  object.Type
	data []byte
}

// cachedCost is what an object costs the cache beyond its data: its
// element in the order, its slot in the map, the slice.
const cachedCost = 128

// NewObjectCache returns a cache of at most max bytes of object data.
func NewObjectCache[K comparable](max int64) *ObjectCache[K] {
	return &ObjectCache[K]{max: max, order: list.New(), items: map[K]*list.Element{}}
}

// Get returns the object cached under k.
func (c *ObjectCache[K]) Get(k K) (object.Type, []byte, bool) {
	if c == nil {
		return object.Bad, nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return object.Bad, nil, false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*cachedObject[K])
	return e.typ, e.data, true
}

// Holds reports whether the cache keeps an object of size bytes: one that
// counts more than a quarter of its bound is not kept.
func (c *ObjectCache[K]) Holds(size int64) bool {
	return c != nil && size+cachedCost <= c.max/4
}

// Put caches an object under k.
func (c *ObjectCache[K]) Put(k K, typ object.Type, data []byte) {
	if !c.Holds(int64(len(data))) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(&cachedObject[K]{k, typ, data})
	c.size += int64(len(data)) + cachedCost
	for c.size > c.max {
		el := c.order.Back()
		e := el.Value.(*cachedObject[K])
		c.order.Remove(el)
		delete(c.items, e.key)
		c.size -= int64(len(e.data)) + cachedCost
	}
}

// BaseCache keeps objects that Files resolved, by pack and offset: the
// objects met on the way down a delta chain are inflated and applied once,
// and the next object on the same chain starts from the nearest one
// cached. One cache may serve several Files; a nil cache keeps nothing.
type BaseCache struct{ c *ObjectCache[baseKey] }

type baseKey struct {
	f   *File
	off int64
}

// NewBaseCache returns a cache of at most max bytes of object data.
func NewBaseCache(max int64) *BaseCache {
	return &BaseCache{NewObjectCache[baseKey](max)}
}

// get returns the object cached for the entry of f at off.
func (c *BaseCache) get(f *File, off int64) (object.Type, []byte, bool) {
	if c == nil {
		return object.Bad, nil, false
	}
	return c.c.Get(baseKey{f, off})
}

// put caches the object of the entry of f at off.
func (c *BaseCache) put(f *File, off int64, typ object.Type, data []byte) {
	if c != nil {
		c.c.Put(baseKey{f, off}, typ, data)
	}
}
