package loose

import "io"

// Stage is where writing a loose object failed.
type Stage int

// The stages of writing a loose object.
const (
	// StageCreate: making its fan-out directory or its temporary file.
	StageCreate Stage = iota + 1
	// StageWrite: writing the temporary file.
	StageWrite
	// StagePublish: syncing, closing or renaming it; Err holds the
	// *batch.CommitError that says which.
	StagePublish
)

// WriteError is a failure of the filesystem while a loose object was
// written: the stage, the directory or file it failed on, and the
// system's error. Failures of the data itself (a short stream, a bad
// compression level) are other errors.
type WriteError struct {
	Stage Stage
	Path  string
	Err   error
}

func (e *WriteError) Error() string { return e.Err.Error() }

func (e *WriteError) Unwrap() error { return e.Err }

// tmpWriter tags the failures of writes to a temporary object file.
type tmpWriter struct {
	w    io.Writer
	name string
}

func (t tmpWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil {
		err = &WriteError{Stage: StageWrite, Path: t.name, Err: err}
	}
	return n, err
}
