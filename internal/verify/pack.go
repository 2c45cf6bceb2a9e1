package verify

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"slices"
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
	dataEnd int64  // where the entries end: the trailer, or the end of a pack cut short
	whole   string // what is wrong with the pack's frame (header, trailer), "" if nothing
	idx     *pack.Index
	format  object.Format
	entries []entry // by offset
	// starts are where the entries begin, and links their bases (their
	// places in entries), as their headers say: see link.
	starts []int64
	links  []int32
	// untrusted says that the index's own checksum failed: its offsets
	// and ids lay the pack out (git reads it so), its CRCs are not used,
	// and an object that does not read back is taken for broken itself.
	untrusted bool
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
		held := p.idx.Size() + treeBytes*int64(len(p.entries)) + int64(opts.Workers)*2*workerCache(opts.Workers, p.size)
		opts.Reserve(held)
		defer opts.Reserve(-held)
	}
	bad, sound, err := p.stream(ctx, opts)
	if err != nil {
		return 0, nil, err
	}
	if !sound && p.whole == "" {
		p.whole = "pack checksum mismatch"
	}
	if p.whole != "" {
		damage = append(damage, Damage{Pack: path, Why: p.whole})
	}
	for i, why := range bad {
		damage = append(damage, Damage{ID: p.idx.ID(i), Pack: path, Why: why, Own: true})
	}
	more, err := p.objects(ctx, bad, opts)
	if err != nil {
		return 0, nil, err
	}
	return p.idx.Count(), append(damage, more...), nil
}

// Layout reads the index of the pack at path, checks it, and returns the
// pack's entries by offset with the index, and what is wrong with the
// pack's frame (its header, its trailer: "" where nothing is); a pack cut
// short has entries that end past its end. An index git cannot use is an
// error; one whose own checksum fails lays the pack out without its CRCs
// (HasCRC false).
func Layout(path string, f object.Format) (*pack.Index, []pack.Span, string, error) {
	p, damage, err := openPack(path, f)
	if err != nil {
		return nil, nil, "", err
	}
	if p == nil {
		return nil, nil, "", errors.New(damage[0].Why)
	}
	p.f.Close()
	spans := make([]pack.Span, len(p.entries))
	for k, e := range p.entries {
		crc, has := p.idx.CRC(e.i)
		spans[k] = pack.Span{ID: p.idx.ID(e.i), Pos: e.i, Start: e.start, End: e.end, CRC: crc, HasCRC: has && !p.untrusted}
	}
	return p.idx, spans, p.whole, nil
}

// openPack opens the pack at path with its index, and lays it out
// (frame). An index that does not parse, or that lays out nothing, breaks
// every object of the pack: that is returned as damage, with a nil
// packSet. An index whose own checksum fails is damage too, returned with
// the pack laid out by it (untrusted).
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
	sum, covered := idx.Checksum()
	untrusted := !bytes.Equal(sumOf(f.NewChecksum(), covered), sum)
	file, err := os.Open(path)
	if err != nil {
		return whole(fmt.Sprintf("cannot open: %v", err))
	}
	p := &packSet{path: path, f: file, idx: idx, format: f, untrusted: untrusted}
	if why := p.frame(); why != "" {
		file.Close()
		if untrusted {
			why = "index file " + idxPath + " has a bad checksum"
		}
		return whole(why)
	}
	if untrusted {
		// git reads the pack through it all the same (it checks an
		// index's checksum only in git fsck): so does the check.
		return p, []Damage{{Pack: path, Why: "index file " + idxPath + " has a bad checksum"}}, nil
	}
	return p, nil, nil
}

// frame reads the pack's header and trailer and lays out its entries from
// the index: each ends where the next begins, the last before the trailer.
// A header or trailer that does not match the index is noted (whole) but
// the entries are still laid out: a pack cut short keeps the entries
// before the cut. It returns what makes a layout impossible, or "".
func (p *packSet) frame() string {
	st, err := p.f.Stat()
	if err != nil {
		return err.Error()
	}
	p.size = st.Size()
	hs := int64(p.format.Size())
	p.dataEnd = p.size - hs
	var head [pack.HeaderSize]byte
	trailer := make([]byte, hs)
	p.f.ReadAt(head[:], 0)
	if p.size >= pack.HeaderSize+hs {
		p.f.ReadAt(trailer, p.dataEnd)
	}
	h, err := pack.ParseHeader(head[:])
	switch {
	case err != nil:
		p.whole = "pack header: " + err.Error()
	case int(h.Count) != p.idx.Count():
		p.whole = fmt.Sprintf("pack holds %d objects, its index %d", h.Count, p.idx.Count())
	case !bytes.Equal(trailer, p.idx.PackChecksum()):
		p.whole, p.dataEnd = "packfile does not match index (another trailer: cut short, or overwritten)", p.size
	}
	p.entries = make([]entry, p.idx.Count())
	for i := range p.entries {
		off, err := p.idx.Offset(i)
		if err != nil || off < pack.HeaderSize {
			return fmt.Sprintf("index names an offset outside the pack for entry %d", i)
		}
		p.entries[i] = entry{i: i, start: off}
	}
	slices.SortFunc(p.entries, func(a, b entry) int { return cmp.Compare(a.start, b.start) })
	for k := range p.entries {
		p.entries[k].end = p.dataEnd
		if k+1 < len(p.entries) {
			p.entries[k].end = p.entries[k+1].start
		}
		if p.entries[k].end <= p.entries[k].start {
			if p.entries[k].start < p.dataEnd {
				return "index names two objects at one offset"
			}
			p.entries[k].end = p.entries[k].start // past the end of a pack cut short
		}
	}
	return ""
}

// stream reads the pack once from start to the end of its entries, at the
// rate opts allows: its checksum against its trailer, each entry's CRC
// against the index's, and each entry's header (links). It returns the
// entries, by index number, whose bytes are not what the index recorded
// or lie past the end of the pack, and whether the checksum matched.
func (p *packSet) stream(ctx context.Context, opts Options) (bad map[int]string, sound bool, err error) {
	bad = map[int]string{}
	sum := p.format.NewChecksum()
	r := newLimited(ctx, io.NewSectionReader(p.f, 0, p.dataEnd), opts.Rate)
	buf := make([]byte, 1<<20)
	var off int64
	k := 0
	crc := crc32.NewIEEE()
	p.starts = make([]int64, len(p.entries))
	p.links = make([]int32, len(p.entries))
	for k, e := range p.entries {
		p.starts[k], p.links[k] = e.start, pack.Outside
	}
	head := make([]byte, 0, headMax)
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
			if need := min(headMax, e.end-e.start); int64(len(head)) < need {
				head = append(head, chunk[:min(take, need-int64(len(head)))]...)
				if int64(len(head)) == need {
					p.links[k] = p.link(head, e)
				}
			}
			crc.Write(chunk[:take])
			chunk, off = chunk[take:], off+take
			if off == e.end {
				if want, ok := p.idx.CRC(e.i); ok && !p.untrusted && crc.Sum32() != want {
					bad[e.i] = fmt.Sprintf("bad packed object CRC for %s", p.idx.ID(e.i))
				}
				crc.Reset()
				head = head[:0]
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
	for ; k < len(p.entries); k++ {
		bad[p.entries[k].i] = fmt.Sprintf("packed object %s is cut off: the pack ends at %d", p.idx.ID(p.entries[k].i), p.size)
	}
	return bad, p.whole == "" && bytes.Equal(sum.Sum(nil), p.idx.PackChecksum()), nil
}

// sumOf is the hash h gives b.
func sumOf(h hash.Hash, b []byte) []byte {
	h.Write(b)
	return h.Sum(nil)
}
