package crashtest

import (
	"fmt"
	"path/filepath"
)

// strictLost returns the expected objects that a crash after the return
// may lose under M_P, each with why: its data was never fsynced, or its
// name (or a directory on its path that the run made) was never made
// durable by an fsync of the directory holding it, after it was made.
func (w *walker) strictLost() map[string]string {
	lost := map[string]string{}
	for p := range w.expect {
		if why, ok := w.missing[p]; ok {
			lost[p] = why
			continue
		}
		at := w.boundAt[p]
		if !w.flushedSince(filepath.Dir(p), at) {
			lost[p] = fmt.Sprintf("no fsync of %s after the name was made", filepath.Dir(p))
			continue
		}
		if d, ok := w.fragileDir(filepath.Dir(p)); !ok {
			lost[p] = fmt.Sprintf("directory %s was made but %s was not fsynced after", d, filepath.Dir(d))
		}
	}
	return lost
}

// flushedSince reports whether directory d was fsynced (or syncfs ran)
// after step at; at < 0 is the initial state, durable by definition.
func (w *walker) flushedSince(d string, at int) bool {
	if at < 0 || w.syncfsAt > at {
		return true
	}
	f, ok := w.flushedAt[d]
	return ok && f > at
}

// fragileDir walks up from d and returns the first directory the run made
// whose name was not made durable, and false; or "", true.
func (w *walker) fragileDir(d string) (string, bool) {
	for {
		at, made := w.madeAt[d]
		if !made {
			return "", true
		}
		if !w.flushedSince(filepath.Dir(d), at) {
			return d, false
		}
		d = filepath.Dir(d)
	}
}
