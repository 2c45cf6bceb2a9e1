package unpack

import (
	"container/list"
	"sync"

	"github.com/git-durable/git-durable/object"
)

// cache is a least-recently-used cache of delta bases, bounded in bytes.
// Cached data is shared and never modified.
type cache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // front = most recently used
	items map[object.ID]*list.Element
}

type cached struct {
	id   object.ID
	typ  object.Type
	data []byte
}

func newCache(max int64) *cache {
	return &cache{max: max, order: list.New(), items: map[object.ID]*list.Element{}}
}

// put caches data unless it would take more than a quarter of the cache.
func (c *cache) put(id object.ID, typ object.Type, data []byte) {
	n := int64(len(data))
	if n > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[id]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[id] = c.order.PushFront(&cached{id, typ, data})
	c.size += n
	for c.size > c.max {
		el := c.order.Back()
		v := el.Value.(*cached)
		c.order.Remove(el)
		delete(c.items, v.id)
		c.size -= int64(len(v.data))
	}
}

func (c *cache) get(id object.ID) (object.Type, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[id]
	if !ok {
		return object.Bad, nil, false
	}
	c.order.MoveToFront(el)
	v := el.Value.(*cached)
	return v.typ, v.data, true
}

// budget bounds the bytes of entry data queued for or held by workers. A
// single request larger than the whole budget waits until nothing else is
// held.
type budget struct {
	mu   sync.Mutex
	cond *sync.Cond
	max  int64
	used int64
}

func newBudget(max int64) *budget {
	b := &budget{max: max}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *budget) acquire(n int64) {
	b.mu.Lock()
	for b.used > 0 && b.used+n > b.max {
		b.cond.Wait()
	}
	b.used += n
	b.mu.Unlock()
}

// tryAcquire takes n if that fits without waiting.
func (b *budget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used > 0 && b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.cond.Broadcast()
	b.mu.Unlock()
}
