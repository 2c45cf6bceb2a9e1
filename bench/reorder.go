package main

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"io"
	"sort"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// reorderByDepth rewrites a pack of full objects and OFS deltas with
// every full object first, then every delta on one, then every delta on
// those, and so on, each level in the pack's order: the same entries,
// deltas and compressed data, only the distances to the bases rewritten
// (a valid pack: each base still comes before its deltas). It is the worst
// order for a resolver that keeps the latest bases: every base is as far
// back as it can be.
func reorderByDepth(p []byte) ([]byte, error) {
	type raw struct {
		off, data, end int64 // the entry, its compressed data, its end
		base           int64 // OFS delta: the base's offset; -1 otherwise
		typ            object.Type
		size           int64
		depth          int
	}
	r := pack.NewReader(bytes.NewReader(p), pack.ReaderOptions{})
	var es []*raw
	byOff := map[int64]*raw{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		x := &raw{off: e.Offset, data: e.Offset + headerLen(p[e.Offset:], e.Type), base: -1, typ: e.Type, size: e.Size}
		switch e.Type {
		case object.RefDelta:
			return nil, fmt.Errorf("reorder: a REF delta at %d", e.Offset)
		case object.OfsDelta:
			x.base, x.depth = e.BaseOffset, byOff[e.BaseOffset].depth+1
		}
		if n, err := io.Copy(io.Discard, r); err != nil || n != e.Size {
			return nil, fmt.Errorf("reorder: entry at %d: %v", e.Offset, err)
		}
		if len(es) > 0 {
			es[len(es)-1].end = e.Offset
		}
		byOff[e.Offset] = x
		es = append(es, x)
	}
	if len(es) > 0 {
		es[len(es)-1].end = int64(len(p) - sha1.Size)
	}
	order := append([]*raw(nil), es...)
	sort.SliceStable(order, func(a, b int) bool { return order[a].depth < order[b].depth })
	out := pack.AppendHeader(nil, pack.Header{Version: 2, Count: uint32(len(es))})
	moved := map[int64]int64{}
	for _, x := range order {
		at := int64(len(out))
		moved[x.off] = at
		out = pack.AppendEntryHeader(out, x.typ, x.size)
		if x.typ == object.OfsDelta {
			out = pack.AppendOfsDistance(out, at-moved[x.base])
		}
		out = append(out, p[x.data:x.end]...)
	}
	sum := sha1.Sum(out)
	return append(out, sum[:]...), nil
}

// headerLen returns the length of the header of the entry at the start of
// b, of type t: its type and size, and an OFS delta's distance.
func headerLen(b []byte, t object.Type) int64 {
	n := int64(1)
	for b[n-1]&0x80 != 0 {
		n++
	}
	if t == object.OfsDelta {
		for b[n]&0x80 != 0 {
			n++
		}
		n++
	}
	return n
}
