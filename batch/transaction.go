package batch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Transaction is one durable batch of object writes: any number of Commit calls,
// from any number of goroutines, then End.
type Transaction struct {
	p *Policy

	mu       sync.Mutex
	renames  int             // renames, removals and adoptions
	last     string          // final name renamed last, or the directory of the last removal or adoption
	lastDir  bool            // last is a directory
	adopted  bool            // an adoption came after the last rename or removal
	wroteOut bool            // some object got only a writeout
	dirs     map[string]bool // directories that received a new name
	made     map[string]bool // directories created by this batch
}

// Begin starts a transaction: one batch of object writes.
func (p *Policy) Begin() *Transaction {
	return &Transaction{p: p, dirs: map[string]bool{}, made: map[string]bool{}}
}

// Mkdir creates a directory that will receive new names, so that End can
// make the directory itself durable where the path needs it.
func (tx *Transaction) Mkdir(name string, perm fs.FileMode) error {
	if err := tx.p.fs.Mkdir(name, perm); err != nil {
		return err
	}
	tx.mu.Lock()
	tx.made[name] = true
	tx.mu.Unlock()
	return nil
}

// Written tells the transaction that all of f's data is written. Where
// Commit will give f a writeout (the batch and writeout-only paths) and f
// is a Starter, the writeback starts now, so that waiting for it overlaps
// with whatever the caller does before Commit. It is advice: an error is
// left for Commit's writeout to report.
func (tx *Transaction) Written(f File) {
	switch tx.p.currentPath() {
	case PathBatch, PathWriteoutOnly:
		if s, ok := f.(Starter); ok {
			s.StartWriteout()
		}
	}
}

// Commit publishes the written file f under the name final: it syncs f as
// the path asks (writeout-only for batch), closes it and renames it. On
// failure the temporary file is removed and final is not touched, so no
// final name ever holds data that was not synced as the method requires.
//
// A failure is a *CommitError saying which step failed.
func (tx *Transaction) Commit(f File, final string) error {
	fsys := tx.p.fs
	tmp := f.Name()
	wroteOut, err := tx.p.syncFile(f)
	if err != nil {
		f.Close()
		fsys.Remove(tmp)
		return &CommitError{Step: StepSync, Path: tmp, Err: err}
	}
	if err := f.Close(); err != nil {
		fsys.Remove(tmp)
		return &CommitError{Step: StepClose, Path: tmp, Err: err}
	}
	// Renames are serialized so that "last" is the rename that really came
	// last: End flushes that file, and a journaled filesystem commits on
	// fsync only up to the transaction that last touched the file.
	tx.mu.Lock()
	err = fsys.Rename(tmp, final)
	if err == nil {
		tx.renames++
		tx.last, tx.lastDir, tx.adopted = final, false, false
		tx.wroteOut = tx.wroteOut || wroteOut
		tx.dirs[filepath.Dir(final)] = true
	}
	tx.mu.Unlock()
	if err != nil {
		fsys.Remove(tmp)
		return &CommitError{Step: StepRename, Path: final, Err: err}
	}
	return nil
}

// Adopt makes name, a file that another process wrote and named (a ref,
// the config git wrote around a fetch), part of the batch: it gets the
// sync its path gives an object before its rename — a writeout on the
// batch path, a full flush on the fsync paths — and End makes its name
// durable with the batch's names.
func (tx *Transaction) Adopt(name string) error {
	f, err := tx.p.fs.Reopen(name)
	if err != nil {
		return &CommitError{Step: StepSync, Path: name, Err: err}
	}
	wroteOut, err := tx.p.syncFile(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &CommitError{Step: StepSync, Path: name, Err: err}
	}
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tx.renames++
	tx.last, tx.lastDir, tx.adopted = filepath.Dir(name), true, true
	tx.wroteOut = tx.wroteOut || wroteOut
	tx.dirs[filepath.Dir(name)] = true
	return nil
}

// AdoptDir tells the batch that directory name's entries changed by the
// hand of another process (a ref git created or deleted there, a
// directory git made in it): End makes them durable.
func (tx *Transaction) AdoptDir(name string) {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tx.renames++
	tx.last, tx.lastDir, tx.adopted = name, true, true
	tx.dirs[name] = true
}

// Remove removes name; End makes the removal durable.
func (tx *Transaction) Remove(name string) error {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if err := tx.p.fs.Remove(name); err != nil {
		return err
	}
	tx.renames++
	tx.last, tx.lastDir, tx.adopted = filepath.Dir(name), true, false
	tx.dirs[filepath.Dir(name)] = true
	return nil
}

// End makes the batch durable. On the batch path the object renamed last is
// the Last one: it gets the single full flush, after its rename (its
// directory does, where the filesystem's Kind asks for DirCommit, or where
// a removal came last). Where an adopted file came last, whose name was
// given before, End first creates and removes a file of its own in that
// file's directory and flushes the directory: a journaled filesystem
// commits on a sync only up to the transaction that last touched what is
// synced, and that operation is in the newest. On the fsync and fallback
// paths every directory that received a new name is flushed, and the
// parent of every directory the batch created. It must be called after
// every Commit has returned, also after a failed one, so that what was
// published is durable.
func (tx *Transaction) End() error {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if tx.renames == 0 {
		return nil
	}
	switch tx.p.currentPath() {
	case PathNone, PathWriteoutOnly:
		return nil
	case PathBatch:
		return tx.flushLast()
	}
	if tx.wroteOut {
		// The fallback began mid-batch: commit what was written out.
		if err := tx.flushLast(); err != nil {
			return err
		}
	}
	dirs := map[string]bool{}
	for d := range tx.dirs {
		dirs[d] = true
	}
	for d := range tx.made {
		dirs[filepath.Dir(d)] = true
	}
	names := make([]string, 0, len(dirs))
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		if err := tx.p.flush(d, true); err != nil {
			return err
		}
	}
	return nil
}

// flushLast is the batch's one full flush after its last operation (see
// End). tx.mu must be held.
func (tx *Transaction) flushLast() error {
	if !tx.lastDir {
		return tx.p.flushLast(tx.last)
	}
	if tx.adopted {
		if err := tx.mark(tx.last); err != nil {
			return err
		}
	}
	return tx.p.flush(tx.last, true)
}

// mark creates and removes a file in dir: an operation of the batch's own
// in the newest journal transaction.
func (tx *Transaction) mark(dir string) error {
	var f File
	var err error
	for i := 0; ; i++ {
		f, err = tx.p.fs.Create(filepath.Join(dir, fmt.Sprintf("tmp_commit_%d_%d", os.Getpid(), i)), 0o444)
		if !errors.Is(err, fs.ErrExist) || i == 100 {
			break
		}
	}
	if err != nil {
		return err
	}
	err = f.Close()
	if rerr := tx.p.fs.Remove(f.Name()); err == nil {
		err = rerr
	}
	return err
}
