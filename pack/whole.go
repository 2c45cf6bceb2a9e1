package pack

import (
	"io"

	"github.com/git-durable/git-durable/object"
)

// WriteWhole writes to w a pack of n whole objects, the i-th as next(i)
// gives it, each deflated at level: no delta, every object standing alone
// (what a repair writes of the objects it fetched again). It returns the
// trailer and the index entries.
func WriteWhole(w io.Writer, f object.Format, n int, next func(i int) (Base, error), level int) ([]byte, []IndexEntry, error) {
	a, err := newAppender(w, f.NewChecksum(), level)
	if err != nil {
		return nil, nil, err
	}
	a.bw.Write(AppendHeader(nil, Header{Version: 2, Count: uint32(n)}))
	a.off = HeaderSize
	a.added = make([]IndexEntry, 0, n)
	for i := range n {
		b, err := next(i)
		if err != nil {
			return nil, nil, err
		}
		if err := a.add(b); err != nil {
			return nil, nil, err
		}
	}
	return a.finish()
}
