package pack_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

type entry struct {
	e    pack.Entry
	data []byte
	err  error
}

// readAll reads every entry of p and the error that ended the stream.
func readAll(p []byte, opts pack.ReaderOptions) ([]entry, error) {
	r := pack.NewReader(bytes.NewReader(p), opts)
	var out []entry
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			if pack.Recoverable(err) {
				out = append(out, entry{err: err})
				continue
			}
			return out, err
		}
		data, err := io.ReadAll(r)
		out = append(out, entry{e, data, err})
	}
}

func samplePack(f object.Format) (*packtest.Builder, []byte) {
	b := &packtest.Builder{Format: f}
	base := []byte("hello, base object with some text in it\n")
	b.Object(object.Blob, base)
	b.Object(object.Commit, []byte("tree 0000\n"))
	d := (&packtest.Delta{}).Copy(0, 7).Insert([]byte("world\n")).Bytes(uint64(len(base)), 13)
	b.OfsDelta(0, d)
	id, _ := f.Sum(object.Blob, base)
	b.RefDelta(id, d)
	b.Object(object.Tree, nil)
	b.Object(object.Tag, bytes.Repeat([]byte("x"), 100000))
	return b, b.Pack()
}

func TestReaderEntries(t *testing.T) {
	for _, f := range []object.Format{object.SHA1, object.SHA256} {
		b, p := samplePack(f)
		got, err := readAll(p, pack.ReaderOptions{Format: f})
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		want := []object.Type{object.Blob, object.Commit, object.OfsDelta, object.RefDelta, object.Tree, object.Tag}
		if len(got) != len(want) {
			t.Fatalf("%v: %d entries, want %d", f, len(got), len(want))
		}
		for i, g := range got {
			if g.err != nil || g.e.Type != want[i] || g.e.Offset != b.Offset(i) || int64(len(g.data)) != g.e.Size {
				t.Errorf("%v entry %d: %+v err %v len %d", f, i, g.e, g.err, len(g.data))
			}
		}
		if got[2].e.BaseOffset != b.Offset(0) {
			t.Errorf("ofs base %d, want %d", got[2].e.BaseOffset, b.Offset(0))
		}
		if got[3].e.BaseID.Size() != f.Size() {
			t.Errorf("ref base id size %d", got[3].e.BaseID.Size())
		}
	}
}

func TestReaderTrailerRestTee(t *testing.T) {
	_, p := samplePack(object.SHA1)
	extra := []byte("trailing bytes")
	var tee bytes.Buffer
	r := pack.NewReader(bytes.NewReader(append(append([]byte{}, p...), extra...)), pack.ReaderOptions{Tee: &tee})
	for {
		_, err := r.Next() // entries skipped unread: Next discards them
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(r.Checksum(), p[len(p)-20:]) {
		t.Errorf("checksum %x", r.Checksum())
	}
	if !bytes.Equal(r.Rest(), extra) {
		t.Errorf("rest %q", r.Rest())
	}
	if !bytes.Equal(tee.Bytes(), p) {
		t.Errorf("tee got %d bytes, want the %d of the pack", tee.Len(), len(p))
	}
	if r.Offset() != int64(len(p)) {
		t.Errorf("offset %d", r.Offset())
	}
}

func TestReaderStructureErrors(t *testing.T) {
	_, good := samplePack(object.SHA1)
	badSum := append([]byte{}, good...)
	badSum[len(badSum)-1] ^= 1
	version := append([]byte{}, good...)
	version[7] = 4
	short := &packtest.Builder{Count: 7}
	short.Object(object.Blob, []byte("a"))
	long := &packtest.Builder{Count: 1}
	long.Object(object.Blob, []byte("a"))
	long.Object(object.Blob, []byte("b"))
	ofs := &packtest.Builder{}
	ofs.Raw(object.OfsDelta, 3, packtest.OfsDistance(100), packtest.Deflate([]byte("abc")))
	ofsZero := &packtest.Builder{}
	ofsZero.Raw(object.OfsDelta, 3, []byte{0}, packtest.Deflate([]byte("abc")))
	overflow := &packtest.Builder{}
	overflow.Raw(object.OfsDelta, 3, bytes.Repeat([]byte{0xff}, 12), nil)
	sizeOverflow := &packtest.Builder{}
	sizeOverflow.Bytes(append(bytes.Repeat([]byte{0xff}, 11), 1))
	sizeOverflow.Count = 1
	tests := []struct {
		name string
		p    []byte
		want error
	}{
		{"empty", nil, io.ErrUnexpectedEOF},
		{"signature", []byte("KCAP\x00\x00\x00\x02\x00\x00\x00\x00"), pack.ErrSignature},
		{"version", version, pack.VersionError(4)},
		{"checksum", badSum, pack.ErrChecksum},
		{"truncated trailer", good[:len(good)-3], io.ErrUnexpectedEOF},
		{"count too high", short.Pack(), io.ErrUnexpectedEOF},
		{"count too low", long.Pack(), pack.ErrChecksum},
		{"ofs out of range", ofs.Pack(), pack.ErrOffsetRange},
		{"ofs zero", ofsZero.Pack(), pack.ErrOffsetRange},
		{"ofs overflow", overflow.Pack(), pack.ErrOffsetOverflow},
		{"size overflow", sizeOverflow.Pack(), pack.ErrSizeOverflow},
	}
	for _, tt := range tests {
		_, err := readAll(tt.p, pack.ReaderOptions{})
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestReaderTruncatedEverywhere(t *testing.T) {
	_, p := samplePack(object.SHA1)
	for n := 0; n < len(p); n++ {
		_, err := readAll(p[:n], pack.ReaderOptions{})
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
}

func TestReaderEntryErrors(t *testing.T) {
	tests := []struct {
		name  string
		size  int64
		zdata []byte
		code  int
	}{
		{"declared larger", 10, packtest.Deflate([]byte("abc")), 1},
		{"declared smaller", 2, packtest.Deflate([]byte("abc")), -5},
		{"corrupt deflate", 3, []byte{0x78, 0x01, 0xff, 0xff, 0xff}, -3},
		{"corrupt zlib header", 3, []byte{0x78, 0x02, 0xff, 0xff, 0xff}, -3},
		{"bad adler32", 3, append(packtest.Deflate([]byte("abc"))[:11], 0, 0, 0, 0), -3},
	}
	for _, tt := range tests {
		b := &packtest.Builder{}
		b.Raw(object.Blob, tt.size, nil, tt.zdata)
		got, _ := readAll(b.Pack(), pack.ReaderOptions{})
		var ie *pack.InflateError
		if len(got) == 0 || !errors.As(got[0].err, &ie) || ie.Code != tt.code {
			t.Errorf("%s: %+v, want inflate code %d", tt.name, got, tt.code)
		}
	}
	// A bad type leaves the reader right after the entry header; an entry
	// whose data ended early leaves it right after the zlib stream: both go on.
	b := &packtest.Builder{}
	b.Raw(5, 3, nil, nil)
	b.Raw(object.Blob, 10, nil, packtest.Deflate([]byte("abc")))
	b.Object(object.Blob, []byte("fine"))
	got, err := readAll(b.Pack(), pack.ReaderOptions{})
	if err != nil || len(got) != 3 {
		t.Fatalf("%d entries, %v", len(got), err)
	}
	var te *pack.TypeError
	if !errors.As(got[0].err, &te) || te.Type != 5 {
		t.Errorf("entry 0: %v, want type error", got[0].err)
	}
	var ie *pack.InflateError
	if !errors.As(got[1].err, &ie) || ie.Code != 1 {
		t.Errorf("entry 1: %v", got[1].err)
	}
	if string(got[2].data) != "fine" {
		t.Errorf("entry 2: %+v", got[2])
	}
}

func TestReaderMaxSize(t *testing.T) {
	_, p := samplePack(object.SHA1)
	if _, err := readAll(p, pack.ReaderOptions{MaxSize: int64(len(p))}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := readAll(p, pack.ReaderOptions{MaxSize: 100}); !errors.Is(err, pack.ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReaderReadError(t *testing.T) {
	_, err := readAll(nil, pack.ReaderOptions{})
	if err == nil {
		t.Fatal("no error on empty input")
	}
	r := pack.NewReader(&failingReader{}, pack.ReaderOptions{})
	_, err = r.Next()
	var re *pack.ReadError
	if !errors.As(err, &re) {
		t.Errorf("got %v, want a ReadError", err)
	}
}

func TestReaderLiesAboutSize(t *testing.T) {
	// A 1 GiB claim on 6 bytes of data must fail without allocating.
	b := &packtest.Builder{}
	b.Raw(object.Blob, 1<<30, nil, packtest.Deflate([]byte("abcdef")))
	got, err := readAll(b.Pack(), pack.ReaderOptions{})
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %d", err, len(got))
	}
	var ie *pack.InflateError
	if !errors.As(got[0].err, &ie) || ie.Code != 1 {
		t.Errorf("got %v", got[0].err)
	}
}
