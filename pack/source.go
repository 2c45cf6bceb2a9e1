package pack

import (
	"hash"
	"io"
)

// source sits below the Reader's bufio.Reader. It counts what it reads and
// keeps the bytes that may not have been consumed yet, so that the pack hash
// (and an optional copy of the stream) covers exactly the bytes the parser
// consumed: the bufio.Reader reads ahead past the trailer, and hashing at
// read time would take those bytes in.
type source struct {
	r     io.Reader
	n     int64  // bytes read from r
	err   error  // a read error other than io.EOF
	pend  []byte // bytes read but not yet passed on; pend[head:] is live
	head  int
	start int64 // stream offset of pend[head]

	hash hash.Hash   // nil once the trailer is reached
	crc  hash.Hash32 // CRC-32 of the current entry's raw bytes, when asked for
	tee  io.Writer   // optional copy of every consumed byte, trailer included
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		if s.head > 0 && len(s.pend)+n > cap(s.pend) {
			live := copy(s.pend, s.pend[s.head:])
			s.pend = s.pend[:live]
			s.head = 0
		}
		s.pend = append(s.pend, p[:n]...)
		s.n += int64(n)
	}
	if err != nil && err != io.EOF {
		s.err = &ReadError{err}
	}
	return n, err
}

// advance passes the bytes up to stream offset off to the hash and the tee.
func (s *source) advance(off int64) error {
	k := int(off - s.start)
	if k <= 0 {
		return nil
	}
	b := s.pend[s.head : s.head+k]
	if s.hash != nil {
		s.hash.Write(b)
	}
	if s.crc != nil {
		s.crc.Write(b)
	}
	s.head += k
	s.start = off
	if s.head == len(s.pend) {
		s.pend = s.pend[:0]
		s.head = 0
	}
	if s.tee != nil {
		if _, err := s.tee.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// pending returns how many bytes wait to be passed on.
func (s *source) pending() int { return len(s.pend) - s.head }
