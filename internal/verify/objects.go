package verify

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/git-durable/git-durable/pack"
)

// chunk is how many entries, consecutive in the pack, a worker takes at
// once: its base cache then holds what they share.
const chunk = 2048

// The objects the workers keep of what they resolved on the way down
// delta chains: half the pack's bytes, between cachesMin and cachesMax
// (git's core.deltaBaseCacheLimit twice over), shared out among them.
// Bases further back than the cache reaches are inflated again. On
// git.git's 292 MiB pack, two workers verified it in 22-24 s with 32 MiB
// each, 18.2-18.6 s with 96 MiB (peak RSS 197 MiB and 459 MiB; git fsck
// --full: 49 s, 495 MiB); on git.git to v2.0.0 (a 51 MiB pack) 64 MiB in
// all verified as fast as 192 MiB (3.05 s and 3.10-3.47 s, alternated)
// at 190 MiB of peak RSS instead of 451 MiB (git fsck --full: 207 MiB).
const (
	cachesMin = 64 << 20
	cachesMax = 192 << 20
)

// workerCache is the cache of each of workers on a pack of size bytes.
func workerCache(workers int, size int64) int64 {
	return min(max(size/2, cachesMin), cachesMax) / int64(max(workers, 1))
}

// objects resolves and hashes every object of the pack but those whose
// bytes are known bad (skip), opts.Workers at a time, and returns the
// damage: an object that does not inflate, whose delta does not apply, or
// whose data does not hash to the id the index gives it. The delta tree
// checks what it can; the rest is read as the store reads it.
func (p *packSet) objects(ctx context.Context, skip map[int]string, opts Options) ([]Damage, error) {
	var done atomic.Int64
	progress := func(n int) {
		if d := done.Add(int64(n)); opts.Progress != nil {
			opts.Progress("Checking objects", d, int64(len(p.entries)))
		}
	}
	checked := p.tree(ctx, skip, opts.Workers, workerCache(opts.Workers, p.size), progress)
	var rest []entry
	for k, e := range p.entries {
		if !checked[k] {
			rest = append(rest, e)
		}
	}
	return p.each(ctx, rest, skip, opts, progress)
}

// each reads and hashes the objects of es but those skip holds, each as
// the store reads it (pack.File, with a cache of bases), opts.Workers at
// a time, and returns the damage.
func (p *packSet) each(ctx context.Context, es []entry, skip map[int]string, opts Options, progress func(int)) ([]Damage, error) {
	next := make(chan []entry)
	var mu sync.Mutex
	var damage []Damage
	var wg sync.WaitGroup
	for range opts.Workers {
		wg.Go(func() {
			file := pack.NewFile(p.f, p.idx, p.format)
			file.Cache = pack.NewBaseCache(workerCache(opts.Workers, p.size))
			for es := range next {
				for _, e := range es {
					if skipped(skip, e) {
						continue
					}
					if why := p.check(file, e); why != "" {
						mu.Lock()
						damage = append(damage, Damage{ID: p.idx.ID(e.i), Pack: p.path, Why: why, Own: p.untrusted})
						mu.Unlock()
					}
				}
				progress(len(es))
			}
		})
	}
	for start := 0; start < len(es) && ctx.Err() == nil; start += chunk {
		next <- es[start:min(start+chunk, len(es))]
	}
	close(next)
	wg.Wait()
	return damage, ctx.Err()
}

// check reads the object of entry e from file and says what is wrong with
// it, or "".
func (p *packSet) check(file *pack.File, e entry) string {
	id := p.idx.ID(e.i)
	typ, data, err := file.ObjectAt(e.start)
	if err != nil {
		return fmt.Sprintf("cannot read packed object %s: %v", id, err)
	}
	got, err := p.format.Sum(typ, data)
	if err != nil {
		return fmt.Sprintf("packed object %s: %v", id, err)
	}
	if got != id {
		return fmt.Sprintf("packed object %s hashes to %s", id, got)
	}
	return ""
}
