package pack_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// fuzzEntryLimit bounds what the fuzzer reads of one entry; Next discards
// the rest (and must not fail for it).
const fuzzEntryLimit = 16 << 20

// FuzzReader reads arbitrary bytes as a pack stream, in either format. It
// must not panic, and what it returns must hang together: entries start
// after one another inside the input, a delta's base lies before it, an
// entry read to its end is exactly as long as it says, errors are sticky,
// and io.EOF comes only after as many entries as the header declares and
// a trailer that is the hash of everything before it — which the Tee saw
// verbatim, with Rest holding what follows.
func FuzzReader(f *testing.F) {
	for _, format := range []object.Format{object.SHA1, object.SHA256} {
		_, p := samplePack(format)
		f.Add(p, format == object.SHA256)
	}
	f.Fuzz(func(t *testing.T, data []byte, sha256 bool) {
		format := object.SHA1
		if sha256 {
			format = object.SHA256
		}
		var tee bytes.Buffer
		r := pack.NewReader(bytes.NewReader(data), pack.ReaderOptions{Format: format, Tee: &tee})
		last, entries := int64(-1), 0
		for i := 0; ; i++ {
			if i > len(data) {
				t.Fatalf("%d calls to Next on %d bytes", i, len(data))
			}
			e, err := r.Next()
			if err == io.EOF {
				checkEnd(t, r, data, tee.Bytes(), format, entries)
				return
			}
			if r.Offset() > int64(len(data)) {
				t.Fatalf("offset %d past the %d bytes of input", r.Offset(), len(data))
			}
			if err != nil {
				var te *pack.TypeError
				if errors.As(err, &te) {
					entries++ // an entry, of a type that is not one
				}
				if pack.Recoverable(err) {
					continue
				}
				if _, again := r.Next(); again == nil || again.Error() != err.Error() {
					t.Fatalf("error not sticky: %v, then %v", err, again)
				}
				return
			}
			entries++
			if e.Offset <= last || e.Offset >= int64(len(data)) {
				t.Fatalf("entry at %d after one at %d, in %d bytes", e.Offset, last, len(data))
			}
			last = e.Offset
			if e.Type == object.OfsDelta && (e.BaseOffset <= 0 || e.BaseOffset >= e.Offset) {
				t.Fatalf("OFS base at %d for an entry at %d", e.BaseOffset, e.Offset)
			}
			n, err := io.Copy(io.Discard, io.LimitReader(r, fuzzEntryLimit))
			if n > e.Size {
				t.Fatalf("read %d bytes of an entry of %d", n, e.Size)
			}
			if err == nil && n < fuzzEntryLimit && n != e.Size {
				t.Fatalf("entry of %d ended cleanly after %d bytes", e.Size, n)
			}
		}
	})
}

// checkEnd checks a stream that ended with io.EOF.
func checkEnd(t *testing.T, r *pack.Reader, data, tee []byte, format object.Format, entries int) {
	t.Helper()
	hdr, _ := r.Header()
	if uint32(entries) != hdr.Count {
		t.Fatalf("EOF after %d entries, header says %d", entries, hdr.Count)
	}
	off := r.Offset()
	sum := r.Checksum()
	if len(sum) != format.Size() || off < int64(12+len(sum)) {
		t.Fatalf("EOF at %d with checksum %x", off, sum)
	}
	h := format.New()
	h.Write(data[:off-int64(len(sum))])
	if !bytes.Equal(h.Sum(nil), sum) || !bytes.Equal(data[off-int64(len(sum)):off], sum) {
		t.Fatalf("trailer %x is not the hash of the stream", sum)
	}
	if !bytes.Equal(tee, data[:off]) {
		t.Fatalf("tee saw %d bytes, the stream is %d", len(tee), off)
	}
	if rest := r.Rest(); !bytes.HasPrefix(data[off:], rest) {
		t.Fatalf("rest %q does not follow the trailer", rest)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next after EOF: %v", err)
	}
}

// FuzzApplyDelta applies arbitrary deltas to arbitrary bases. It must not
// panic, must agree with a plain interpreter of the delta format (git's
// patch-delta.c, written here without the two passes and the early size
// checks), and must give the same result into a reused buffer.
func FuzzApplyDelta(f *testing.F) {
	base := bytes.Repeat([]byte("0123456789"), 30)
	for _, d := range [][]byte{
		{0xac, 0x02, 0x05, 0x91, 0x0a, 0x05},             // copy 5 at 10
		{0xac, 0x02, 0x02, 0x02, 'x', 'y'},               // insert
		{0xac, 0x02, 0x00},                               // empty result
		{0xac, 0x02, 0x01, 0x00},                         // opcode 0
		{0xac, 0x02, 0x05, 0x91, 0xff, 0x05},             // copy past base
		{0xac, 0x02, 0x80, 0x80, 0x80, 0x80, 0x10, 0x80}, // copy 64k default, size lies
		bytes.Repeat([]byte{0xff}, 12),                   // size overflow
	} {
		f.Add(base, d)
	}
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		got, err := pack.ApplyDelta(nil, base, delta)
		want, wantErr := naiveDelta(base, delta)
		if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("ApplyDelta: %q, %v; plain interpreter: %q, %v", got, err, want, wantErr)
		}
		if err != nil {
			return
		}
		if _, size, _, _ := pack.DeltaHeader(delta); size != uint64(len(got)) {
			t.Fatalf("result of %d bytes, header says %d", len(got), size)
		}
		dst := make([]byte, 3, len(got)+7)
		again, err := pack.ApplyDelta(dst, base, delta)
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("into a reused buffer: %q, %v", again, err)
		}
	})
}

var errNaive = errors.New("bad delta")

// naiveDelta interprets a delta one instruction at a time.
func naiveDelta(base, delta []byte) ([]byte, error) {
	i := 0
	size := func() (uint64, bool) {
		var v uint64
		for shift := 0; i < len(delta) && shift <= 63; shift += 7 {
			c := delta[i]
			i++
			v |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	baseSize, ok1 := size()
	resultSize, ok2 := size()
	if !ok1 || !ok2 || baseSize != uint64(len(base)) {
		return nil, errNaive
	}
	var out []byte
	for i < len(delta) {
		cmd := delta[i]
		i++
		switch {
		case cmd&0x80 != 0:
			var v [7]uint64 // offset bytes 0-3, size bytes 4-6
			for bit := 0; bit < 7; bit++ {
				if cmd&(1<<bit) != 0 {
					if i >= len(delta) {
						return nil, errNaive
					}
					v[bit] = uint64(delta[i])
					i++
				}
			}
			off := v[0] | v[1]<<8 | v[2]<<16 | v[3]<<24
			n := v[4] | v[5]<<8 | v[6]<<16
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > resultSize {
				return nil, errNaive
			}
			out = append(out, base[off:off+n]...)
		case cmd != 0:
			if i+int(cmd) > len(delta) || uint64(len(out))+uint64(cmd) > resultSize {
				return nil, errNaive
			}
			out = append(out, delta[i:i+int(cmd)]...)
			i += int(cmd)
		default:
			return nil, errNaive
		}
	}
	if uint64(len(out)) != resultSize {
		return nil, errNaive
	}
	return out, nil
}
