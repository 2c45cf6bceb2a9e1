package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// runner holds what every run shares.
type runner struct {
	work     string // scratch directory on the disk under test
	runs     string // where the runs' repositories go ("" = work)
	force    bool   // set GIT_DURABLE_FORCE_BATCH for ours
	shm      string // scratch directory on tmpfs
	bin      string // our binary
	self     string // this program, for the floor
	packPath string
	sizes    string // sizes file for the floor
	n        int    // runs so far, for unique names
	last     string // the repository of the last run
	undo     func() // unmounts the journaled ext4 at runs (nil: there is none)
}

// newRunner makes the runner of the binary bin: work, the scratch
// directory on the disk under test (the runs go to a journaled ext4 made
// in it where one can be), and one on /dev/shm. close takes them back.
func newRunner(work, bin string) (*runner, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	binPath, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	shm, err := os.MkdirTemp("/dev/shm", "git-durable-bench-")
	if err != nil {
		return nil, err
	}
	r := &runner{work: work, shm: shm, bin: binPath, self: self}
	if mnt, undo, err := journaled(work, 16<<30); err == nil {
		r.runs, r.undo = mnt, undo
		fmt.Println("runs on a journaled ext4 on a loop device (direct I/O) backed by a file in", work)
	} else {
		r.force = true
		fmt.Printf("runs in %s without a journaled ext4 (%v): GIT_DURABLE_FORCE_BATCH=1, batch is measured but not durable there\n", work, err)
	}
	return r, nil
}

// close unmounts the runs' journaled ext4, removes the repositories of
// every run and the scratch directory on /dev/shm.
func (r *runner) close() {
	if r.undo != nil {
		r.undo()
	}
	r.cleanup()
	os.RemoveAll(r.shm)
}

// repoFor makes a fresh empty bare repository for one run.
func (r *runner) repoFor(v variant) (string, error) {
	r.n++
	parent := r.work
	if r.runs != "" {
		parent = r.runs
	}
	if v.tmpfs {
		parent = r.shm
	}
	dir := filepath.Join(parent, fmt.Sprintf("run%04d", r.n))
	return dir, run(parent, nil, "git", "init", "-q", "--bare", dir)
}

// cleanup removes the repositories of every run.
func (r *runner) cleanup() {
	for _, parent := range []string{r.work, r.runs, r.shm} {
		runs, _ := filepath.Glob(filepath.Join(parent, "run[0-9]*"))
		for _, d := range runs {
			os.RemoveAll(d)
		}
	}
}
