package packtest

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/git-durable/git-durable/object"
)

// Node is an object of a delta forest: a full blob, or a delta on an
// earlier node of the same forest.
type Node struct {
	Data []byte
	Base int  // the index of the base node; -1 for a full object
	Ref  bool // a REF_DELTA, naming its base by id, instead of an OFS_DELTA
}

// Depth returns how many deltas lie between node i and its full object.
func Depth(nodes []Node, i int) int {
	d := 0
	for nodes[i].Base >= 0 {
		i = nodes[i].Base
		d++
	}
	return d
}

// Forest appends the nodes to b in order (a permutation of their indexes)
// and returns the entry index of each node. An OFS delta must come after
// its base; a REF delta may come anywhere, before its base too.
func (b *Builder) Forest(nodes []Node, order []int) ([]int, error) {
	entry := make([]int, len(nodes))
	for i := range entry {
		entry[i] = -1
	}
	for _, i := range order {
		n := nodes[i]
		switch {
		case n.Base < 0:
			entry[i] = b.Object(object.Blob, n.Data)
		case n.Ref:
			id, _ := object.SHA1.Sum(object.Blob, nodes[n.Base].Data)
			entry[i] = b.RefDelta(id, DeltaFor(nodes[n.Base].Data, n.Data))
		case entry[n.Base] < 0:
			return nil, fmt.Errorf("packtest: OFS delta %d before its base %d", i, n.Base)
		default:
			entry[i] = b.OfsDelta(entry[n.Base], DeltaFor(nodes[n.Base].Data, n.Data))
		}
	}
	return entry, nil
}

// DeltaFor returns a delta that makes target from base: a copy of what
// they have in common at the start and at the end, the rest inserted.
func DeltaFor(base, target []byte) []byte {
	pre := 0
	for pre < len(base) && pre < len(target) && base[pre] == target[pre] {
		pre++
	}
	suf := 0
	for suf < len(base)-pre && suf < len(target)-pre && base[len(base)-1-suf] == target[len(target)-1-suf] {
		suf++
	}
	d := &Delta{}
	copyRange(d, 0, pre)
	d.Insert(target[pre : len(target)-suf])
	copyRange(d, len(base)-suf, suf)
	return d.Bytes(uint64(len(base)), uint64(len(target)))
}

// copyRange appends copies of base[off:off+n], in pieces a copy can name.
func copyRange(d *Delta, off, n int) {
	for n > 0 {
		k := min(n, 0xffff)
		d.Copy(uint32(off), uint32(k))
		off, n = off+k, n-k
	}
}

// DepthFirst orders the nodes as pack-objects mostly does: each full
// object followed by its whole tree, every delta right after its base's
// subtree so far.
func DepthFirst(nodes []Node) []int {
	kids := kidsOf(nodes)
	var order []int
	var walk func(int)
	walk = func(i int) {
		order = append(order, i)
		for _, k := range kids[i] {
			walk(k)
		}
	}
	for i, n := range nodes {
		if n.Base < 0 {
			walk(i)
		}
	}
	return order
}

// BreadthFirst orders the nodes by depth: every full object first, then
// every delta on one, and so on. Each delta's base is as far back as it
// can be: the worst order for a resolver that keeps the latest bases.
func BreadthFirst(nodes []Node) []int {
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return Depth(nodes, order[a]) < Depth(nodes, order[b]) })
	return order
}

// Shuffled orders the nodes at random (from seed), each OFS delta after
// its base, REF deltas anywhere.
func Shuffled(nodes []Node, seed int64) []int {
	rng := rand.New(rand.NewSource(seed))
	kids := kidsOf(nodes)
	written := make([]bool, len(nodes))
	var ready []int // nodes that may come next
	for i, n := range nodes {
		if n.Base < 0 || n.Ref {
			ready = append(ready, i)
		}
	}
	var order []int
	for len(ready) > 0 {
		k := rng.Intn(len(ready))
		i := ready[k]
		ready[k] = ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		order = append(order, i)
		written[i] = true
		for _, c := range kids[i] {
			if !nodes[c].Ref && !written[c] {
				ready = append(ready, c)
			}
		}
	}
	return order
}

// Reversed orders the nodes from the last to the first: with REF deltas
// only, every delta comes before its base.
func Reversed(nodes []Node) []int {
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = len(nodes) - 1 - i
	}
	return order
}

func kidsOf(nodes []Node) [][]int {
	kids := make([][]int, len(nodes))
	for i, n := range nodes {
		if n.Base >= 0 {
			kids[n.Base] = append(kids[n.Base], i)
		}
	}
	return kids
}
