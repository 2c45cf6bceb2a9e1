//go:build linux

package blocktest

import (
	"fmt"
	"os"
	"slices"
)

// Replay writes the crash image of each point, in turn, to the file name
// and calls fn with the point; base is the disk content when the log began.
// The points must be sorted by Upto (as Log.Points returns them). fn may
// change the file (mounting an image recovers its journal): each image is
// written anew. Replay stops at the first error fn returns.
func Replay(base *Disk, l Log, points []Point, name string, fn func(Point) error) error {
	if !slices.IsSortedFunc(points, func(a, b Point) int { return a.Upto - b.Upto }) {
		return fmt.Errorf("blockrec: replay points are not sorted")
	}
	disk := base.Clone()
	applied := 0
	for _, p := range points {
		for ; applied < p.Upto; applied++ {
			disk.Apply(l[applied])
		}
		if err := disk.WriteFile(name); err != nil {
			return err
		}
		if err := writeOps(name, l, p.Extra); err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

// writeOps applies the writes l[i] for i in idx, in order, to the file name.
func writeOps(name string, l Log, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	for _, i := range idx {
		o := l[i]
		if o.Kind != Write {
			continue
		}
		data := o.Data
		if data == nil {
			data = make([]byte, o.Len)
		}
		if _, err = f.WriteAt(data, o.Off); err != nil {
			break
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
