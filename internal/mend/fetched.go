package mend

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/git-durable/git-durable/internal/verify"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// fetchedPacks are the packs a refetch wrote, whose every object the
// unpack hashed as it came: the good copies of the broken ones.
type fetchedPacks []*fetchedPack

// fetchedPack is one of them: read at random (pack.File), and laid out
// by its index (verify.Layout) on the first copy of one of its entries
// (copyOf).
type fetchedPack struct {
	*pack.File
	r      *os.File
	path   string
	idx    *pack.Index
	format object.Format
	once   sync.Once
	spans  []pack.Span // by offset
}

// openFetched opens the packs at paths (those it cannot read are left
// out), and returns them with what closes them.
func openFetched(paths []string, f object.Format) (fetchedPacks, func()) {
	var files fetchedPacks
	for _, p := range paths {
		x, xerr := readIndex(p, f)
		file, ferr := os.Open(p)
		if xerr != nil || ferr != nil {
			if ferr == nil {
				file.Close()
			}
			continue
		}
		files = append(files, &fetchedPack{File: pack.NewFile(file, x, f), r: file, path: p, idx: x, format: f})
	}
	return files, func() {
		for _, fp := range files {
			fp.r.Close()
		}
	}
}

// copyOf returns the entry of id as the first of the packs that holds it
// has it, to be copied as it is into a pack written again (pack.ReadCopy:
// its bytes checked against its CRC, a delta's base named by id).
func (fp fetchedPacks) copyOf(id object.ID) (pack.Copied, bool) {
	for _, p := range fp {
		off, ok := p.idx.FindOffset(id)
		if !ok {
			continue
		}
		p.once.Do(func() { _, p.spans, _, _ = verify.Layout(p.path, p.format) })
		s, ok := p.spanAt(off)
		if !ok || !s.HasCRC {
			return pack.Copied{}, false
		}
		c, err := pack.ReadCopy(p.r, s.Start, s.End, s.CRC, p.format, func(at int64) (object.ID, bool) {
			b, ok := p.spanAt(at)
			return b.ID, ok
		})
		return c, err == nil
	}
	return pack.Copied{}, false
}

// spanAt returns the entry of the pack that starts at off.
func (p *fetchedPack) spanAt(off int64) (pack.Span, bool) {
	k, ok := slices.BinarySearchFunc(p.spans, off, func(s pack.Span, off int64) int { return cmp.Compare(s.Start, off) })
	if !ok {
		return pack.Span{}, false
	}
	return p.spans[k], true
}

// share gives the packs one cache of what they resolve: the good copies
// a rewrite asks for are the bases of many deltas each (git.git to v2.0.0
// with 1 MiB zeroed mid-pack: 1,513 deltas made whole from good copies of
// their bases in 0.8 s instead of 1.1 s).
func (fp fetchedPacks) share(c *pack.BaseCache) {
	for _, pf := range fp {
		pf.Cache = c
	}
}

// has reports whether one of the packs holds id.
func (fp fetchedPacks) has(id object.ID) bool {
	for _, pf := range fp {
		if pf.Has(id) {
			return true
		}
	}
	return false
}

// goodCopies returns what reads the good copy of an object: from the
// fetched packs, else from the store, its hash checked (a damaged pack's
// copy may inflate to something else).
func goodCopies(store *loose.Store, f object.Format, fetched fetchedPacks) func(object.ID) (pack.Base, error) {
	return func(id object.ID) (pack.Base, error) {
		for _, pf := range fetched {
			if typ, data, err := pf.Object(id); err == nil {
				if got, err := f.Sum(typ, data); err == nil && got == id {
					return pack.Base{ID: id, Type: typ, Data: data}, nil
				}
			}
		}
		typ, data, err := store.Read(id)
		if err == nil {
			var got object.ID
			if got, err = f.Sum(typ, data); err == nil && got != id {
				err = fmt.Errorf("its copy hashes to %s", got)
			}
		}
		return pack.Base{ID: id, Type: typ, Data: data}, err
	}
}

// readIndex reads and parses the index of the pack p.
func readIndex(p string, f object.Format) (*pack.Index, error) {
	data, err := os.ReadFile(strings.TrimSuffix(p, ".pack") + ".idx")
	if err != nil {
		return nil, err
	}
	return pack.ParseIndex(data, f)
}
