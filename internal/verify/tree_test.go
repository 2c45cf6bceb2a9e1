package verify

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// forestPack writes to dir a pack of chains of blobs, OFS and REF deltas,
// laid out in order (REF deltas before their bases too; every delta a REF
// delta where refs says so), indexed by git index-pack, and returns its
// path and how many of its entries are deltas.
func forestPack(t *testing.T, env []string, dir string, order func([]packtest.Node) []int, refs bool) (string, int) {
	t.Helper()
	rng := rand.New(rand.NewSource(7))
	var nodes []packtest.Node
	deltas := 0
	for i := range 60 {
		if i%12 == 0 {
			nodes = append(nodes, packtest.Node{Data: fmt.Appendf(bytes.Repeat([]byte("a line of a file\n"), 300), "root %d\n", i), Base: -1})
			continue
		}
		base := len(nodes) - 1 - rng.Intn(min(len(nodes), 4))
		data := append([]byte{}, nodes[base].Data...)
		copy(data[rng.Intn(len(data)-20):], fmt.Sprintf("<delta %d>", i))
		nodes = append(nodes, packtest.Node{Data: data, Base: base, Ref: refs || i%3 == 0})
		deltas++
	}
	b := &packtest.Builder{}
	if _, err := b.Forest(nodes, order(nodes)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "pack-forest.pack")
	if err := os.WriteFile(path, b.Pack(), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, env, dir, "index-pack", path)
	return path, deltas
}

// damageBy returns what a check of the pack at path finds: through the
// delta tree (objects, with room for the chains' objects) or, without
// tree, every object read as the store reads it — sorted, one per line.
func damageBy(t *testing.T, path string, f object.Format, tree bool, room int64) (string, []bool) {
	t.Helper()
	p, damage, err := openPack(path, f)
	if err != nil || p == nil {
		t.Fatalf("open: %v %v", damage, err)
	}
	defer p.f.Close()
	opts := Options{Workers: 2}
	bad, _, err := p.stream(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	nothing := func(int) {}
	var checked []bool
	if tree {
		checked = p.tree(context.Background(), bad, opts.Workers, room, nothing)
	}
	more, err := p.each(context.Background(), checked, bad, opts, nothing)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, why := range bad {
		lines = append(lines, p.idx.ID(i).String()+" own "+why)
	}
	for _, d := range more {
		lines = append(lines, fmt.Sprintf("%s %v %s", d.ID, d.Own, d.Why))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n"), checked
}

// TestTree checks that the delta tree checks every object of a sound pack
// — one git made, and hand-made ones whose REF deltas come before their
// bases — with one worker or two, and, with room for no chain, no more
// than the whole objects and the deltas on them; and that on each of many
// damaged copies (a byte flipped in an entry's header or data, its index's
// CRCs used or not) it finds exactly what reading every object as the
// store does finds.
func TestTree(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	_, gitPack, _ := packedRepo(t, env, "sha1")
	packs := []string{gitPack}
	for _, tc := range []struct {
		name  string
		order func([]packtest.Node) []int
	}{
		{"reversed", packtest.Reversed}, {"breadth", packtest.BreadthFirst},
		{"shuffled", func(n []packtest.Node) []int { return packtest.Shuffled(n, 3) }},
	} {
		dir := filepath.Join(t.TempDir(), tc.name)
		os.MkdirAll(dir, 0o755)
		path, deltas := forestPack(t, env, dir, tc.order, tc.name == "reversed")
		if deltas == 0 {
			t.Fatal("no deltas")
		}
		packs = append(packs, path)
	}
	for _, path := range packs {
		for _, room := range []int64{1 << 30, 1} {
			got, checked := damageBy(t, path, object.SHA1, true, room)
			n := 0
			for _, c := range checked {
				if c {
					n++
				}
			}
			if got != "" || room > 1 && n != len(checked) || room == 1 && (n == 0 || n == len(checked) && strings.Contains(path, "forest")) {
				t.Errorf("%s, sound, room %d: %d of %d checked by the tree; damage %q", filepath.Base(path), room, n, len(checked), got)
			}
		}
		os.Chmod(path, 0o644)
		sound, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		idxPath := strings.TrimSuffix(path, ".pack") + ".idx"
		os.Chmod(idxPath, 0o644)
		soundIdx, err := os.ReadFile(idxPath)
		if err != nil {
			t.Fatal(err)
		}
		p, _, _ := openPack(path, object.SHA1)
		starts := []int64{}
		for _, e := range p.entries {
			starts = append(starts, e.start)
		}
		p.f.Close()
		rng := rand.New(rand.NewSource(11))
		hashed := false
		for round := range 60 {
			k := rng.Intn(len(starts))
			at := starts[k] + int64(round%4) // the header, or the data just after
			if round%2 == 1 && k+1 < len(starts) {
				at = starts[k] + rng.Int63n(starts[k+1]-starts[k])
			}
			bit := byte(1 << (round % 8))
			if round%5 == 0 {
				at, bit = starts[k], 0x10 // the type: a blob read as a tree
			}
			damaged := slices.Clone(sound)
			damaged[at] ^= bit
			if err := os.WriteFile(path, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			// Two rounds in three, an index whose own checksum fails: its
			// CRCs are not used, and what a damaged entry inflates to
			// is hashed.
			idx := slices.Clone(soundIdx)
			if round%3 != 0 {
				idx[len(idx)-1] ^= 1
			}
			if err := os.WriteFile(idxPath, idx, 0o644); err != nil {
				t.Fatal(err)
			}
			want, _ := damageBy(t, path, object.SHA1, false, 0)
			hashed = hashed || strings.Contains(want, "hashes to")
			for _, room := range []int64{1 << 30, 1} {
				if got, _ := damageBy(t, path, object.SHA1, true, room); got != want {
					t.Errorf("%s, byte %d flipped, room %d: the tree finds\n%s\nreading every object finds\n%s", filepath.Base(path), at, room, got, want)
				}
			}
		}
		os.WriteFile(path, sound, 0o644)
		os.WriteFile(idxPath, soundIdx, 0o644)
		if !hashed {
			t.Errorf("%s: no damaged copy read whole with another hash: the tree's hash check went untried", filepath.Base(path))
		}
	}
}
