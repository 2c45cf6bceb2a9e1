package unpack

import (
	"io/fs"
	"os"
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
