//go:build linux

package blocktest

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-durable/git-durable/object"
)

// Scenario is a recorded run to replay, and what every crash image of it
// must show.
type Scenario struct {
	// FS is the recorded filesystem; Base its content when the log began.
	FS   FS
	Base *Disk
	Log  Log
	// ObjectDir is the object directory, relative to the filesystem root.
	ObjectDir string
	Format    object.Format
	// Want must all be present and intact (I-a) in every crash state that
	// includes the last flush before the mark Done. With no flush before
	// Done, every crash state must hold them.
	Want []string
	Done string
	// Damaged are objects broken before the command began (what it is to
	// heal): their final names may hold anything in the crash images
	// before the durable ones.
	Damaged []string
	// Intact are files (paths relative to the filesystem root, and their
	// content when the command returned) written whole under their final
	// names, as a kept pack's: in every crash image each one present must
	// hold that content, and every durable image must hold them all.
	Intact map[string][]byte
	// Files are what the repository around the objects must hold in every
	// durable image (HEAD, config, refs, shallow, as the command left
	// them): the same content; a nil value means the file must not exist.
	Files map[string][]byte
	// Check, when set, is run on every durable image, mounted at root (git
	// fsck of the repository there); its error is a finding.
	Check func(root string) error
	// Points chooses the crash states; KeepFrom is set by Run to the last
	// flush before Done.
	Points PointOptions
	// Work is the directory in which Run makes (and removes) a scratch
	// directory for the image and its mount point; "" chooses /dev/shm
	// when it exists (every image is written anew, a memory filesystem
	// makes that cheap), else the default temporary directory.
	Work string
}

// Run replays every crash state of the scenario: it mounts each image
// (which recovers the journal), checks every object under a final name,
// checks that the durable images hold every wanted object, unmounts, and
// runs the filesystem's checker on the image. Errors of the harness itself
// (not findings) stop it.
func (s *Scenario) Run() (*Verdict, error) {
	done := s.Log.MarkIndex(s.Done)
	if done < 0 {
		return nil, fmt.Errorf("blockrec: no mark %q in the log", s.Done)
	}
	durable := s.Log.LastFlushBefore(done)
	opts := s.Points
	opts.KeepFrom = durable
	v := &Verdict{}
	v.Writes, _, v.Flushes = s.Log.Stats()
	work := s.Work
	if st, err := os.Stat("/dev/shm"); work == "" && err == nil && st.IsDir() {
		work = "/dev/shm"
	}
	scratch, err := os.MkdirTemp(work, "blockrec-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	image, mnt := filepath.Join(scratch, "crash.img"), filepath.Join(scratch, "crash.mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		return nil, err
	}
	r := &replayRun{s: s, v: v, image: image, mnt: mnt, durable: durable}
	err = Replay(s.Base, s.Log, s.Log.Points(opts), image, r.point)
	return v, err
}

// replayRun is the state of one Run: what the last flush boundary held, for the
// count of what a rescue loses.
type replayRun struct {
	s          *Scenario
	v          *Verdict
	image, mnt string
	durable    int
	held       map[string]bool // the objects of the last boundary that mounted
	heldAt     string
}

// point checks the crash image of p.
func (r *replayRun) point(p Point) error {
	s, v := r.s, r.v
	v.Images++
	if err := s.FS.repair(r.image); err != nil {
		v.Unclean = append(v.Unclean, p.Label+": "+firstLine(err.Error()))
		return nil
	}
	m, err := MountFile(s.FS, r.image, r.mnt)
	if err != nil {
		v.Unclean = append(v.Unclean, p.Label+": "+oneLine(err.Error()))
		return r.rescue(p)
	}
	durable := r.durable < 0 || p.Durable(r.durable)
	objs, err := CheckObjects(filepath.Join(r.mnt, s.ObjectDir), s.Format)
	if err == nil {
		r.checkFiles(p, durable)
	}
	if uerr := m.Unmount(); err == nil && uerr != nil {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p.Label, err)
	}
	v.Objects += len(objs.Good) + len(objs.Broken)
	for _, b := range objs.Broken {
		if !durable && slices.Contains(s.Damaged, strings.Replace(b[:min(len(b), 2*s.Format.Size()+1)], "/", "", 1)) {
			continue
		}
		v.Broken = append(v.Broken, p.Label+": "+b)
	}
	if durable {
		v.Durable++
		if miss := objs.Missing(s.Want); len(miss) > 0 {
			v.Missing = append(v.Missing, fmt.Sprintf("%s: %d of %d objects missing (first %s)", p.Label, len(miss), len(s.Want), miss[0]))
		}
	}
	if len(p.Extra) == 0 {
		r.held, r.heldAt = objs.Good, p.Label
	}
	if err := s.FS.Check(r.image); err != nil {
		v.Unclean = append(v.Unclean, p.Label+": "+oneLine(err.Error()))
		return r.rescue(p)
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// oneLine joins the lines of a command's error and output.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", " | ")
}

// checkFiles checks the scenario's Intact files in the mounted image of p,
// and where it is durable its Files and Check.
func (r *replayRun) checkFiles(p Point, durable bool) {
	s, v := r.s, r.v
	for _, name := range slices.Sorted(maps.Keys(s.Intact)) {
		got, err := os.ReadFile(filepath.Join(r.mnt, name))
		switch {
		case err == nil && !bytes.Equal(got, s.Intact[name]):
			v.Broken = append(v.Broken, fmt.Sprintf("%s: %s: %d bytes, not the %d written", p.Label, name, len(got), len(s.Intact[name])))
		case err != nil && durable:
			v.Missing = append(v.Missing, fmt.Sprintf("%s: %s: %v", p.Label, name, err))
		}
	}
	if !durable {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(s.Files)) {
		want := s.Files[name]
		got, err := os.ReadFile(filepath.Join(r.mnt, name))
		switch {
		case want == nil && err == nil:
			v.Wrong = append(v.Wrong, fmt.Sprintf("%s: %s is there, and should not be", p.Label, name))
		case want != nil && err != nil:
			v.Wrong = append(v.Wrong, fmt.Sprintf("%s: %s: %v", p.Label, name, err))
		case want != nil && !bytes.Equal(got, want):
			v.Wrong = append(v.Wrong, fmt.Sprintf("%s: %s holds %q, not %q", p.Label, name, clip(got), clip(want)))
		}
	}
	if s.Check != nil {
		if err := s.Check(r.mnt); err != nil {
			v.Wrong = append(v.Wrong, p.Label+": "+oneLine(err.Error()))
		}
	}
}

// clip shortens file content for a finding.
func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
