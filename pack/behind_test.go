package pack

import (
	"bytes"
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
	b := newBehind(w)
	for rest := want.Bytes(); len(rest) > 0; {
		k := min(len(rest), 1+len(rest)%(behindSize+7))
		b.Write(rest[:k])
		rest = rest[k:]
	}
	if err := b.close(); err != nil || !bytes.Equal(w.got.Bytes(), want.Bytes()) {
		t.Fatalf("close: %v; %d bytes written of %d", err, w.got.Len(), want.Len())
	}
	w = &failAfter{n: behindSize}
	b = newBehind(w)
	b.Write(want.Bytes())
	if err := b.close(); !errors.Is(err, errFull) {
		t.Fatalf("close after a failed write: %v", err)
	}
}
