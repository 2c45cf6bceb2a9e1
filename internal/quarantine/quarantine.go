// Package quarantine is where a repair sets aside what it retires — a
// damaged pack, an index it replaced, a stale lock, a broken loose object
// or ref — instead of deleting it: a directory of the git directory that
// git ignores, $GIT_DIR/durable-quarantine, with a folder per run named
// after its time (20261206T041500Z-<pid>), under which each retired file
// keeps its path relative to the git directory. Moving the files of a
// folder back undoes the repair by hand; the runner removes folders older
// than its retention (Expire). Every rename, link and directory flush goes
// through batch.FS, so that the crash fakes see each one.
package quarantine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/git-durable/git-durable/batch"
)

// Name is the quarantine's directory in a git directory.
const Name = "durable-quarantine"

// stampLayout is how a run's folder names its time (UTC).
const stampLayout = "20060102T150405Z"

// Dir is one run's folder in the quarantine of a git directory. It is
// made on first use. It is safe for concurrent use.
type Dir struct {
	fs  batch.FS
	git string // the git directory: retired paths are kept relative to it
	run string // <git>/durable-quarantine/<stamp>-<pid>

	mu      sync.Mutex
	made    map[string]bool // directories of the run's folder made so far
	touched map[string]bool // directories to flush: those names left or came to
	retired []string        // relative paths, in order
}

// New returns the folder of a run that begins at now in the quarantine of
// the git directory gitDir, on the filesystem fsys (nil: batch.OS).
// Nothing is made until a file is retired.
func New(fsys batch.FS, gitDir string, now time.Time) *Dir {
	if fsys == nil {
		fsys = batch.OS
	}
	stamp := fmt.Sprintf("%s-%d", now.UTC().Format(stampLayout), os.Getpid())
	return &Dir{fs: fsys, git: filepath.Clean(gitDir), run: filepath.Join(gitDir, Name, stamp),
		made: map[string]bool{}, touched: map[string]bool{}}
}

// Path returns the run's folder (which may not exist yet).
func (d *Dir) Path() string { return d.run }

// Retire moves the file path, inside the git directory, into the run's
// folder: it is no longer where git reads it. A file that is not there is
// no error.
func (d *Dir) Retire(path string) error {
	to, err := d.place(path)
	if err != nil {
		return err
	}
	if err := d.fs.Rename(path, to); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	d.note(path, to)
	return nil
}

// Keep gives the file path, inside the git directory, a second name in the
// run's folder (a hard link), where it stays once a rename replaces it:
// the file is never absent where git reads it. A file that is not there is
// no error.
func (d *Dir) Keep(path string) error {
	to, err := d.place(path)
	if err != nil {
		return err
	}
	if err := d.fs.Link(path, to); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := d.fs.Lstat(path); errors.Is(serr, fs.ErrNotExist) {
				return nil
			}
		}
		return err
	}
	d.note(path, to)
	return nil
}

// Adopt moves path, a file or a directory beside the git directory on the
// same filesystem (a repository a reclone replaced), into the run's folder
// as name: kept, as what is retired is, until the runner's retention.
func (d *Dir) Adopt(path, name string) error {
	if name == "" || strings.ContainsRune(name, filepath.Separator) || name == "." || name == ".." {
		return fmt.Errorf("cannot set %s aside as %q", path, name)
	}
	d.mu.Lock()
	err := d.mkdirs(d.run)
	d.mu.Unlock()
	if err != nil {
		return err
	}
	to := filepath.Join(d.run, name)
	if err := d.fs.Rename(path, to); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.touched[filepath.Dir(path)] = true
	d.touched[d.run] = true
	d.retired = append(d.retired, filepath.ToSlash(filepath.Join(Name, filepath.Base(d.run), name)))
	return nil
}

// note records that path went to to.
func (d *Dir) note(path, to string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.touched[filepath.Dir(path)] = true
	d.touched[filepath.Dir(to)] = true
	rel, _ := filepath.Rel(d.git, path)
	d.retired = append(d.retired, filepath.ToSlash(rel))
}

// place returns where path goes in the run's folder, making the folders
// on the way; path must lie inside the git directory, and the quarantine
// must be a directory, not a link to one.
func (d *Dir) place(path string) (string, error) {
	rel, err := filepath.Rel(d.git, filepath.Clean(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("cannot set %s aside: it is not in %s", path, d.git)
	}
	if rel == Name || strings.HasPrefix(rel, Name+string(filepath.Separator)) {
		return "", fmt.Errorf("cannot set %s aside: it is in the quarantine", path)
	}
	to := filepath.Join(d.run, rel)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.mkdirs(filepath.Dir(to)); err != nil {
		return "", err
	}
	return to, nil
}

// mkdirs makes dir and the folders above it up to the quarantine's root,
// each a directory of its own (never a link). d.mu must be held.
func (d *Dir) mkdirs(dir string) error {
	if d.made[dir] {
		return nil
	}
	root := filepath.Join(d.git, Name)
	if dir != root {
		if err := d.mkdirs(filepath.Dir(dir)); err != nil {
			return err
		}
	}
	err := d.fs.Mkdir(dir, 0o777)
	switch {
	case err == nil:
		d.touched[filepath.Dir(dir)] = true
		giveToOwner(dir, d.git)
	case errors.Is(err, fs.ErrExist):
		st, serr := d.fs.Lstat(dir)
		if serr != nil {
			return serr
		}
		if !st.IsDir() {
			return fmt.Errorf("cannot set files aside: %s is not a directory", dir)
		}
	default:
		return err
	}
	d.made[dir] = true
	return nil
}

// Flush makes what was retired durable: the directories that names left
// and came to, each flushed once.
func (d *Dir) Flush() error {
	d.mu.Lock()
	dirs := make([]string, 0, len(d.touched))
	for dir := range d.touched {
		dirs = append(dirs, dir)
	}
	d.touched = map[string]bool{}
	d.mu.Unlock()
	for _, dir := range dirs {
		if err := d.fs.FlushDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// Retired returns the paths set aside so far, relative to the git
// directory, in order.
func (d *Dir) Retired() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.retired...)
}

var (
	runsMu sync.Mutex
	runs   = map[string]*Dir{}
)

// Reset forgets the folders d made: the directory its git directory's
// name leads to was replaced (a reclone swapped in), and what is retired
// next makes them anew there. What was retired so far is still counted.
func (d *Dir) Reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.made, d.touched = map[string]bool{}, map[string]bool{}
}

// For returns this process's run folder in the quarantine of the git
// directory gitDir on the operating system's filesystem: the same one
// every time, so that all a process retires in one repository (a fetch's
// replaced copies, a mend's packs, a runner's locks) is in one folder.
func For(gitDir string) *Dir {
	runsMu.Lock()
	defer runsMu.Unlock()
	key := filepath.Clean(gitDir)
	if d, ok := runs[key]; ok {
		return d
	}
	d := New(nil, key, time.Now())
	runs[key] = d
	return d
}
