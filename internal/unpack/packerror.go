package unpack

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
)

// PackWriteError is a failure of the filesystem while a file of a kept
// pack (Ext "pack", "idx", "rev" or "keep") or the spill file of an
// exploded one ("spill") was written: the stage, the file (for
// loose.StageCreate, the temporary file's pattern, tmp_<ext>_XXXXXX) and
// the system's error; at loose.StagePublish, Err holds the
// *batch.CommitError that says which step.
type PackWriteError struct {
	Ext   string
	Stage loose.Stage
	Path  string
	Err   error
}

// Error is the system's error, as git prints it.
func (e *PackWriteError) Error() string { return e.Err.Error() }

// Unwrap gives the system's error, for errors.Is and errors.As.
func (e *PackWriteError) Unwrap() error { return e.Err }

// packWriteErr tags err, a failure at stage of the file path, as a
// PackWriteError; nil and errors tagged already pass as they are.
func packWriteErr(ext string, stage loose.Stage, path string, err error) error {
	var pe *PackWriteError
	if err == nil || errors.As(err, &pe) {
		return err
	}
	return &PackWriteError{Ext: ext, Stage: stage, Path: path, Err: err}
}

// createErr tags a failure to create the store's temporary file of kind
// ext, named by its pattern as git names it (objects/pack/tmp_pack_XXXXXX).
func createErr(store *loose.Store, ext string, err error) error {
	return packWriteErr(ext, loose.StageCreate, filepath.Join(store.Dir(), "pack", "tmp_"+ext+"_XXXXXX"), err)
}

// packWriteFailure says what git index-pack says when writing a pack's
// files fails.
func packWriteFailure(pe *PackWriteError) []Message {
	why := strerror(errno(pe.Err))
	var ce *batch.CommitError
	switch {
	case pe.Stage == loose.StageCreate && pe.Ext == "keep":
		return []Message{fatal("cannot write keep file '" + pe.Path + "': " + why)}
	case pe.Stage == loose.StageCreate:
		return []Message{fatal("Unable to create temporary file '" + pe.Path + "': " + why)}
	case pe.Stage == loose.StageWrite && (pe.Ext == "idx" || pe.Ext == "rev"):
		if errors.Is(pe.Err, syscall.ENOSPC) {
			return []Message{fatal("sha1 file '" + pe.Path + "' write error. Out of diskspace")}
		}
		return []Message{fatal("sha1 file '" + pe.Path + "' write error: " + why)}
	case pe.Stage == loose.StageWrite:
		return []Message{fatal("write error: " + why)}
	case !errors.As(pe.Err, &ce):
		return []Message{fatal(pe.Err.Error())}
	case ce.Step == batch.StepSync:
		return []Message{fatal("fsync error on '" + ce.Path + "': " + why)}
	case ce.Step == batch.StepClose:
		return []Message{fatal("error while closing pack file: " + why)}
	}
	return []Message{fatal("unable to rename temporary '*." + pe.Ext + "' file to '" + ce.Path + "': " + why)}
}

// objectDatabase names the objects directory holding the failed file or
// directory path as git does in its messages (get_object_directory():
// "./objects" from a bare repository, ".git/objects" from the top of a
// work tree): relative to the current directory when below it.
func objectDatabase(path string) string {
	dir := path
	if b := filepath.Base(path); len(b) == 2 || strings.HasPrefix(b, "tmp_") {
		dir = filepath.Dir(path) // a fan-out directory, a temporary file
	}
	wd, err := os.Getwd()
	if err != nil {
		return dir
	}
	rel, err := filepath.Rel(wd, dir)
	switch {
	case err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)):
		return dir
	case strings.HasPrefix(rel, "."):
		return rel
	}
	return "." + string(filepath.Separator) + rel
}

// Local reports whether err is a failure on this side of an unpack — of
// the filesystem the objects are written to (a full disk, a read-only
// filesystem, a permission) or an interruption — and not of the pack
// received.
func Local(err error) bool {
	var (
		we *loose.WriteError
		pe *PackWriteError
		ce *batch.CommitError
		fe *fs.PathError
		le *os.LinkError
		be *BaseError
	)
	switch {
	case errors.As(err, &be):
		return false // the repository's own copy of a base: git's error() lines
	case errors.As(err, &we), errors.As(err, &pe), errors.As(err, &ce), errors.As(err, &fe), errors.As(err, &le):
		return true
	}
	return errors.Is(err, context.Canceled)
}
