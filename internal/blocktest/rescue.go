//go:build linux

package blocktest

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Rescue is what the FS's Rescue (e2fsck -fy) left of one unclean crash
// image: an image that did not mount, or that mounted but that the
// filesystem's checker found inconsistent.
type Rescue struct {
	// Label names the crash image, as in Verdict.Unclean.
	Label string
	// Mounted reports that the rescue ran and the image mounted after it;
	// Failure says otherwise what failed.
	Mounted bool
	Failure string
	// Intact and Broken count the object files found after the rescue.
	Intact, Broken int
	// Held is how many intact objects the last flush boundary before the
	// image (HeldAt) held; Lost how many of them the rescued image lacks
	// or holds broken: all of them when it did not mount.
	Held, Lost int
	HeldAt     string
}

// Full reports whether the rescue brought the image back with nothing
// lost: it mounted, and no object is lost or broken.
func (r Rescue) Full() bool { return r.Mounted && r.Lost == 0 && r.Broken == 0 }

// String describes the rescue for a verdict.
func (r Rescue) String() string {
	if !r.Mounted {
		return fmt.Sprintf("%s: %s; all %d objects that %s held lost", r.Label, r.Failure, r.Held, r.HeldAt)
	}
	return fmt.Sprintf("%s: after the rescue, %d intact objects, %d broken; %d of the %d that %s held lost",
		r.Label, r.Intact, r.Broken, r.Lost, r.Held, r.HeldAt)
}

// rescue runs the FS's Rescue on the unclean image of p, mounts it again
// and records how many objects of the last boundary it lost; an image the
// rescue cannot bring back loses them all.
func (r *replayRun) rescue(p Point) error {
	s, v := r.s, r.v
	if len(s.FS.Rescue) == 0 {
		return nil
	}
	res := Rescue{Label: p.Label, Held: len(r.held), HeldAt: r.heldAt}
	record := func() {
		v.Lost += res.Lost
		v.Rescues = append(v.Rescues, res)
	}
	what := strings.Join(s.FS.Rescue, " ")
	if err := fix(s.FS.Rescue, r.image); err != nil {
		res.Failure, res.Lost = fmt.Sprintf("%s failed: %s", what, firstLine(err.Error())), res.Held
		record()
		return nil
	}
	m, err := MountFile(s.FS, r.image, r.mnt)
	if err != nil {
		res.Failure, res.Lost = fmt.Sprintf("does not mount after %s: %s", what, oneLine(err.Error())), res.Held
		record()
		return nil
	}
	objs, err := CheckObjects(filepath.Join(r.mnt, s.ObjectDir), s.Format)
	if uerr := m.Unmount(); err == nil && uerr != nil {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("%s, rescued: %w", p.Label, err)
	}
	res.Mounted, res.Intact, res.Broken = true, len(objs.Good), len(objs.Broken)
	for id := range r.held {
		if !objs.Good[id] {
			res.Lost++
		}
	}
	record()
	return nil
}

// fullRescues counts the rescues that brought their image back in full.
func (v *Verdict) fullRescues() int {
	n := 0
	for _, r := range v.Rescues {
		if r.Full() {
			n++
		}
	}
	return n
}
