package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// cpuFloor is the work no reader of a pack can leave out, measured on the
// pack itself: inflating every entry (with the stream's checksum and each
// entry's CRC-32, which an index needs too) and hashing every object's
// content with collision detection (the SHA-1 the objects are named by).
// Applying the deltas, which the hashes need, is left out: the floor is
// below any resolver. Each pass runs on one goroutine; the best of three
// is kept, the floor's own noise being upward.
type cpuFloor struct {
	inflate, hash time.Duration
	content       int64 // bytes of object content hashed
	compressed    int64 // bytes of pack read
}

// total is the floor on one core.
func (f cpuFloor) total() time.Duration { return f.inflate + f.hash }

func (f cpuFloor) String() string {
	n := runtime.NumCPU()
	return fmt.Sprintf("CPU floor: inflate %.2f s (%.0f MiB of pack) + hash %.2f s (%.0f MiB of content) = %.2f s on one core, %.2f s on %d",
		f.inflate.Seconds(), float64(f.compressed)/(1<<20), f.hash.Seconds(), float64(f.content)/(1<<20),
		f.total().Seconds(), f.total().Seconds()/float64(n), n)
}

// measureFloor measures the floor of the pack at path.
func measureFloor(path string) (cpuFloor, error) {
	var best cpuFloor
	var sizes []int64
	var buf contentSample
	for i := 0; i < 3; i++ {
		buf = contentSample{}
		start := time.Now()
		s, read, err := inflatePack(path, &buf)
		if err != nil {
			return cpuFloor{}, err
		}
		if d := time.Since(start); i == 0 || d < best.inflate {
			best.inflate = d
		}
		sizes, best.compressed = s, read
	}
	if len(buf) == 0 {
		return cpuFloor{}, fmt.Errorf("%s: no whole object to hash", path)
	}
	for i := 0; i < 3; i++ {
		start := time.Now()
		content := hashSizes(sizes, buf)
		if d := time.Since(start); i == 0 || d < best.hash {
			best.hash = d
		}
		best.content = content
	}
	return best, nil
}

// contentSample keeps the first MiB written to it, and drops the rest: content
// of the pack's own for the hash pass, whose speed (SHA-1 with collision
// detection) depends on the bytes — random ones hash about a third more
// slowly than text.
type contentSample []byte

func (s *contentSample) Write(p []byte) (int, error) {
	if room := 1<<20 - len(*s); room > 0 {
		*s = append(*s, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// inflatePack inflates every entry of the pack at path, whole objects into
// keep, and returns the size of each object it makes (a delta's result
// size), and the bytes read.
func inflatePack(path string, keep io.Writer) ([]int64, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	r := pack.NewReader(bufio.NewReaderSize(f, 1<<20), pack.ReaderOptions{})
	var sizes []int64
	var head [32]byte
	for {
		e, err := r.Next()
		if err == io.EOF {
			return sizes, r.Offset(), nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %v", path, err)
		}
		size, to := e.Size, keep
		if e.Type == object.OfsDelta || e.Type == object.RefDelta {
			to = io.Discard
			n, _ := io.ReadFull(r, head[:min(int64(len(head)), e.Size)])
			_, result, _, err := pack.DeltaHeader(head[:n])
			if err != nil {
				return nil, 0, fmt.Errorf("%s: a delta at %d: %v", path, e.Offset, err)
			}
			size = int64(result)
		}
		if _, err := io.Copy(to, r); err != nil {
			return nil, 0, fmt.Errorf("%s: %v", path, err)
		}
		sizes = append(sizes, size)
	}
}

// hashSizes hashes, for each size, an object of that size made of buf's
// bytes, and returns the bytes hashed.
func hashSizes(sizes []int64, buf []byte) int64 {
	var total int64
	h := object.SHA1.NewHasher()
	for _, size := range sizes {
		h.Begin(object.Blob, size)
		for left := size; left > 0; {
			n := min(left, int64(len(buf)))
			h.Write(buf[:n])
			left -= n
		}
		h.Sum()
		total += size
	}
	return total
}

// floorLine says the CPU time of what keeps a pack (ours and git's, from
// st) beside the floor of that pack, fl (measured: not zero).
func floorLine(fl cpuFloor, st map[string]stats) string {
	line := fl.String()
	for _, row := range []string{"ours keep", "git index-pack", oursClone, gitClone} {
		if s, ok := st[row]; ok {
			line += fmt.Sprintf("; %s %.2f s CPU (%.2f× the floor)", row, s.cpu, s.cpu/fl.total().Seconds())
		}
	}
	return line
}
