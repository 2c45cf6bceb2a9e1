package batch

import (
	"io/fs"
	"path/filepath"
	"sort"
	"sync"
)

// Transaction is one durable batch of object writes: any number of Commit calls,
// from any number of goroutines, then End.
type Transaction struct {
	p *Policy

	mu       sync.Mutex
	renames  int
	last     string          // final name renamed last
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
		tx.last = final
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

// End makes the batch durable. On the batch path the object renamed last is
// the Last one: it gets the single full flush, after its rename (its
// directory does, where the filesystem's Kind asks for DirCommit). On the
// fsync and fallback paths every directory that received a new name is
// flushed, and the parent of every directory the batch created. It must be
// called after every Commit has returned, also after a failed one, so that
// what was published is durable.
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
		return tx.p.flushLast(tx.last)
	}
	if tx.wroteOut {
		// The fallback began mid-batch: commit what was written out.
		if err := tx.p.flushLast(tx.last); err != nil {
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
