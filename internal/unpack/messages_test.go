package unpack

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
)

// TestWriteFailureWords: each stage of a failed loose-object write gets
// git's words, from the typed error alone.
func TestWriteFailureWords(t *testing.T) {
	nospc := &fs.PathError{Op: "write", Path: "o/12/tmp_obj_x", Err: syscall.ENOSPC}
	commit := func(step batch.Step, path string, err error) error {
		return &loose.WriteError{Stage: loose.StagePublish, Path: "o/12/tmp_obj_x", Err: &batch.CommitError{Step: step, Path: path, Err: err}}
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&loose.WriteError{Stage: loose.StageCreate, Path: "o/12", Err: &fs.PathError{Op: "open", Path: "o/12/tmp_obj_x", Err: syscall.ENOSPC}},
			"error: unable to create temporary file: No space left on device|fatal: failed to write object"},
		{&loose.WriteError{Stage: loose.StageWrite, Path: "o/12/tmp_obj_x", Err: nospc},
			"fatal: unable to write loose object file: No space left on device"},
		{commit(batch.StepSync, "o/12/tmp_obj_x", &fs.PathError{Op: "sync_file_range", Path: "o/12/tmp_obj_x", Err: syscall.EIO}),
			"fatal: fsync error on 'o/12/tmp_obj_x': Input/output error"},
		{commit(batch.StepClose, "o/12/tmp_obj_x", &fs.PathError{Op: "close", Path: "o/12/tmp_obj_x", Err: syscall.EIO}),
			"fatal: error when closing loose object file: Input/output error"},
		{commit(batch.StepRename, "o/12/34", &os.LinkError{Op: "rename", Old: "o/12/tmp_obj_x", New: "o/12/34", Err: syscall.EROFS}),
			"error: unable to write file o/12/34: Read-only file system|fatal: failed to write object"},
		{&loose.WriteError{Stage: loose.StageCreate, Path: "/nonexistent/objects/12", Err: &fs.PathError{Op: "open", Path: "/nonexistent/objects/12/tmp_obj_x", Err: syscall.EACCES}},
			"error: insufficient permission for adding an object to repository database /nonexistent/objects|fatal: failed to write object"},
		// A kept pack's files, in git index-pack's words.
		{&PackWriteError{Ext: "pack", Stage: loose.StageCreate, Path: "o/pack/tmp_pack_XXXXXX", Err: &fs.PathError{Op: "open", Path: "o/pack/tmp_pack_ab", Err: syscall.EROFS}},
			"fatal: Unable to create temporary file 'o/pack/tmp_pack_XXXXXX': Read-only file system"},
		{&PackWriteError{Ext: "pack", Stage: loose.StageWrite, Path: "o/pack/tmp_pack_ab", Err: &fs.PathError{Op: "write", Path: "o/pack/tmp_pack_ab", Err: syscall.ENOSPC}},
			"fatal: write error: No space left on device"},
		{&PackWriteError{Ext: "idx", Stage: loose.StageWrite, Path: "o/pack/tmp_idx_ab", Err: &fs.PathError{Op: "write", Path: "o/pack/tmp_idx_ab", Err: syscall.ENOSPC}},
			"fatal: sha1 file 'o/pack/tmp_idx_ab' write error. Out of diskspace"},
		{&PackWriteError{Ext: "keep", Stage: loose.StageCreate, Path: "o/pack/pack-1.keep", Err: &fs.PathError{Op: "open", Path: "o/pack/tmp_keep_ab", Err: syscall.EACCES}},
			"fatal: cannot write keep file 'o/pack/pack-1.keep': Permission denied"},
		{&PackWriteError{Ext: "idx", Stage: loose.StagePublish, Path: "o/pack/pack-1.idx", Err: &batch.CommitError{Step: batch.StepRename, Path: "o/pack/pack-1.idx", Err: &os.LinkError{Op: "rename", Err: syscall.EIO}}},
			"fatal: unable to rename temporary '*.idx' file to 'o/pack/pack-1.idx': Input/output error"},
		{&PackWriteError{Ext: "pack", Stage: loose.StagePublish, Path: "o/pack/tmp_pack_ab", Err: &batch.CommitError{Step: batch.StepSync, Path: "o/pack/tmp_pack_ab", Err: &fs.PathError{Op: "fsync", Err: syscall.EIO}}},
			"fatal: fsync error on 'o/pack/tmp_pack_ab': Input/output error"},
	} {
		lines, kind := Describe(tc.err)
		var got []string
		for _, l := range lines {
			got = append(got, l.String())
		}
		if kind != Fatal || strings.Join(got, "|") != tc.want {
			t.Errorf("%v: %q (kind %v), want %q", tc.err, got, kind, tc.want)
		}
	}
}

// TestObjectDatabase: the objects directory is named as git names it,
// relative to the current directory when below it.
func TestObjectDatabase(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for path, want := range map[string]string{
		dir + "/objects/12":            "./objects",
		dir + "/objects":               "./objects",
		dir + "/.git/objects/ab":       ".git/objects",
		dir + "/objects/tmp_obj_x":     "./objects",
		"/nonexistent/objects/12":      "/nonexistent/objects",
		filepath.Dir(dir) + "/objects": filepath.Dir(dir) + "/objects",
	} {
		if got := objectDatabase(path); got != want {
			t.Errorf("objectDatabase(%q) = %q, want %q", path, got, want)
		}
	}
}
