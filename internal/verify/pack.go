package verify

import (
	"bytes"
	"context"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// entry is an object of a pack's index: its number there, and where its
// bytes begin and end in the pack.
type entry struct {
	i          int
	start, end int64
}

// packSet is one pack open for checking.
type packSet struct {
	path    string
	f       *os.File
	size    int64
	idx     *pack.Index
	format  object.Format
	entries []entry // by offset
}

// checkPack verifies the pack at path and its index: the index's own
// checksum, the pack's header and trailer against what the index records,
// then, in one pass over the pack, its checksum and each entry's CRC, and
// last every object, resolved and hashed. It returns how many objects the
// index lists and the damage found.
func checkPack(ctx context.Context, path string, f object.Format, opts Options) (int, []Damage, error) {
	p, damage, err := openPack(path, f)
	if err != nil || p == nil {
		return 0, damage, err
	}
	defer p.f.Close()
	if opts.Reserve != nil {
		held := p.idx.Size() + int64(opts.Workers)*2*workerCache
		opts.Reserve(held)
		defer opts.Reserve(-held)
	}
	crcBad, sound, err := p.stream(ctx, opts)
	if err != nil {
		return 0, nil, err
	}
	if !sound {
		damage = append(damage, Damage{Pack: path, Why: "pack checksum mismatch"})
	}
	for i, why := range crcBad {
		damage = append(damage, Damage{ID: p.idx.ID(i), Pack: path, Why: why})
	}
	more, err := p.objects(ctx, crcBad, opts)
	if err != nil {
		return 0, nil, err
	}
	return p.idx.Count(), append(damage, more...), nil
}

// openPack opens the pack at path with its index, and checks what breaks
// every object of it: an index that does not parse or whose checksum
// fails, a pack whose header or trailer does not match the index. Those
// are returned as damage, with a nil packSet.
func openPack(path string, f object.Format) (*packSet, []Damage, error) {
	idxPath := strings.TrimSuffix(path, ".pack") + ".idx"
	whole := func(why string) (*packSet, []Damage, error) {
		return nil, []Damage{{Pack: path, Why: why}}, nil
	}
	data, err := os.ReadFile(idxPath)
	if err != nil {
		return whole(fmt.Sprintf("cannot read its index: %v", err))
	}
	idx, err := pack.ParseIndex(data, f)
	if err != nil {
		return whole("index file " + idxPath + " is corrupt")
	}
	if sum, covered := idx.Checksum(); !bytes.Equal(sumOf(f.New(), covered), sum) {
		return whole("index file " + idxPath + " has a bad checksum")
	}
	file, err := os.Open(path)
	if err != nil {
		return whole(fmt.Sprintf("cannot open: %v", err))
	}
	p := &packSet{path: path, f: file, idx: idx, format: f}
	if why := p.frame(); why != "" {
		file.Close()
		return whole(why)
	}
	return p, nil, nil
}

// frame reads the pack's header and trailer and lays out its entries from
// the index; it returns what does not fit, or "".
func (p *packSet) frame() string {
	st, err := p.f.Stat()
	if err != nil {
		return err.Error()
	}
	p.size = st.Size()
	hs := int64(p.format.Size())
	if p.size < pack.HeaderSize+hs {
		return "pack is too short"
	}
	var head [pack.HeaderSize]byte
	trailer := make([]byte, hs)
	if _, err := p.f.ReadAt(head[:], 0); err != nil {
		return err.Error()
	}
	if _, err := p.f.ReadAt(trailer, p.size-hs); err != nil {
		return err.Error()
	}
	h, err := pack.ParseHeader(head[:])
	switch {
	case err != nil:
		return "pack header: " + err.Error()
	case int(h.Count) != p.idx.Count():
		return fmt.Sprintf("pack holds %d objects, its index %d", h.Count, p.idx.Count())
	case !bytes.Equal(trailer, p.idx.PackChecksum()):
		return "packfile does not match index (another trailer)"
	}
	p.entries = make([]entry, p.idx.Count())
	for i := range p.entries {
		off, err := p.idx.Offset(i)
		if err != nil || off < pack.HeaderSize || off >= p.size-hs {
			return fmt.Sprintf("index names an offset outside the pack for entry %d", i)
		}
		p.entries[i] = entry{i: i, start: off}
	}
	sort.Slice(p.entries, func(a, b int) bool { return p.entries[a].start < p.entries[b].start })
	for k := range p.entries {
		p.entries[k].end = p.size - hs
		if k+1 < len(p.entries) {
			p.entries[k].end = p.entries[k+1].start
		}
		if p.entries[k].end <= p.entries[k].start {
			return "index names two objects at one offset"
		}
	}
	return ""
}

// stream reads the pack once from start to end, at the rate opts allows:
// its checksum against its trailer, and each entry's CRC against the
// index's. It returns the entries, by index number, whose bytes are not
// what the index recorded, and whether the checksum matched.
func (p *packSet) stream(ctx context.Context, opts Options) (bad map[int]string, sound bool, err error) {
	bad = map[int]string{}
	sum := p.format.New()
	r := newLimited(ctx, io.NewSectionReader(p.f, 0, p.size-int64(p.format.Size())), opts.Rate)
	buf := make([]byte, 1<<20)
	var off int64
	k := 0
	crc := crc32.NewIEEE()
	for {
		n, rerr := r.Read(buf)
		chunk := buf[:n]
		sum.Write(chunk)
		for len(chunk) > 0 && k < len(p.entries) {
			e := p.entries[k]
			if off < e.start { // the header
				skip := min(int64(len(chunk)), e.start-off)
				chunk, off = chunk[skip:], off+skip
				continue
			}
			take := min(int64(len(chunk)), e.end-off)
			crc.Write(chunk[:take])
			chunk, off = chunk[take:], off+take
			if off == e.end {
				if want, ok := p.idx.CRC(e.i); ok && crc.Sum32() != want {
					bad[e.i] = fmt.Sprintf("bad packed object CRC for %s", p.idx.ID(e.i))
				}
				crc.Reset()
				k++
			}
		}
		if opts.Progress != nil {
			opts.Progress("Checking packs", off, p.size)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, false, rerr
		}
	}
	return bad, bytes.Equal(sum.Sum(nil), p.idx.PackChecksum()), nil
}

// sumOf is the hash h gives b.
func sumOf(h hash.Hash, b []byte) []byte {
	h.Write(b)
	return h.Sum(nil)
}
