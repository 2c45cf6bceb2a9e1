//go:build linux

package blocktest

import (
	"fmt"
	"strings"
)

// Verdict is what the replay of a Scenario found.
type Verdict struct {
	// Images counts the crash images replayed, Durable those that include
	// the last flush before Done, Objects the object files checked in all.
	Images, Durable, Objects int
	// Writes and Flushes count the recorded ops.
	Writes, Flushes int
	// Broken lists final names that do not hold their object (I-b).
	Broken []string
	// Missing lists durable images that lack wanted objects (I-a).
	Missing []string
	// Wrong lists durable images whose repository files differ from what
	// the command left, or that Check refused.
	Wrong []string
	// Unclean lists images that did not mount or that the filesystem
	// checker found inconsistent.
	Unclean []string
	// Rescues says, for each unclean image, what the FS's Rescue left of
	// it (none when the FS has no Rescue).
	Rescues []Rescue
	// Lost counts the objects lost over all rescued images; an image that
	// the rescue could not bring back loses every object the last flush
	// boundary before it held.
	Lost int
}

// OK reports whether the replay found nothing wrong.
func (v *Verdict) OK() bool {
	return len(v.Broken) == 0 && len(v.Missing) == 0 && len(v.Unclean) == 0 && len(v.Wrong) == 0
}

// Recovered reports whether the replay found nothing wrong but unclean
// images that the FS's Rescue (e2fsck -fy) repaired in full: each mounted
// after it and lost or broke no object that the last flush boundary
// before it held. It is the verdict for a configuration where the kernel's
// own recovery may need an fsck, which no choice of system calls avoids;
// an unclean image without such a rescue fails it.
func (v *Verdict) Recovered() bool {
	if len(v.Broken) > 0 || len(v.Missing) > 0 || len(v.Wrong) > 0 || v.Durable == 0 {
		return false
	}
	full := map[string]bool{}
	for _, r := range v.Rescues {
		if r.Full() {
			full[r.Label] = true
		}
	}
	for _, u := range v.Unclean {
		label, _, _ := strings.Cut(u, ": ")
		if !full[label] {
			return false
		}
	}
	return true
}

// String summarizes the verdict with the first findings of each kind.
func (v *Verdict) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d writes, %d flushes; %d crash images (%d durable), %d object files checked; %d broken, %d images missing objects, %d unclean, %d wrong",
		v.Writes, v.Flushes, v.Images, v.Durable, v.Objects, len(v.Broken), len(v.Missing), len(v.Unclean), len(v.Wrong))
	if len(v.Rescues) > 0 {
		fmt.Fprintf(&b, "; %d rescued (%d in full), %d objects lost", len(v.Rescues), v.fullRescues(), v.Lost)
	}
	rescued := make([]string, len(v.Rescues))
	for i, r := range v.Rescues {
		rescued[i] = r.String()
	}
	for _, list := range [][]string{v.Broken, v.Missing, v.Unclean, v.Wrong, rescued} {
		for i, s := range list {
			if i == 5 {
				fmt.Fprintf(&b, "\n  … %d more", len(list)-i)
				break
			}
			b.WriteString("\n  " + s)
		}
	}
	return b.String()
}
