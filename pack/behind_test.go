package pack

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"testing"
)

// failAfter accepts n bytes, then fails every write.
type failAfter struct {
	n   int
	got bytes.Buffer
}

var errFull = errors.New("no space left")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.got.Len()+len(p) > f.n {
		return 0, errFull
	}
	return f.got.Write(p)
}

// TestBehind: what comes in writes of every size reaches w whole and in
// order by close; w's first error comes from close, and the writer takes
// the rest without blocking.
func TestBehind(t *testing.T) {
	var want bytes.Buffer
	for i := 0; want.Len() < 5*behindSize+123; i++ {
		want.Write(bytes.Repeat([]byte{byte(i)}, i%(behindSize/3)+1))
	}
	w := &failAfter{n: 1 << 30}
	b := newBehind(w, nil)
	for rest := want.Bytes(); len(rest) > 0; {
		k := min(len(rest), 1+len(rest)%(behindSize+7))
		b.Write(rest[:k])
		rest = rest[k:]
	}
	if err := b.close(); err != nil || !bytes.Equal(w.got.Bytes(), want.Bytes()) {
		t.Fatalf("close: %v; %d bytes written of %d", err, w.got.Len(), want.Len())
	}
	w = &failAfter{n: behindSize}
	b = newBehind(w, nil)
	b.Write(want.Bytes())
	if err := b.close(); !errors.Is(err, errFull) {
		t.Fatalf("close after a failed write: %v", err)
	}
}

// TestBehindSum: the sum is of everything written before it, whatever
// was handed on yet, and what is written after it still reaches w.
func TestBehindSum(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), behindSize/16*2+100)
	for _, cut := range []int{0, 1, behindSize - 1, behindSize, behindSize + 1, len(data)} {
		w := &failAfter{n: 1 << 30}
		b := newBehind(w, sha1.New())
		b.Write(data[:cut])
		want := sha1.Sum(data[:cut])
		if got := b.sum(); !bytes.Equal(got, want[:]) {
			t.Errorf("cut %d: sum %x, want %x", cut, got, want)
		}
		b.Write(data[cut:])
		if err := b.close(); err != nil || !bytes.Equal(w.got.Bytes(), data) {
			t.Errorf("cut %d: close %v, %d bytes of %d", cut, err, w.got.Len(), len(data))
		}
	}
}
