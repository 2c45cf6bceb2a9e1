package mend

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/quarantine"
)

// copyGitDir makes the git directory to a copy of from without its
// objects: every file and link (configuration, HEAD, refs, packed-refs or
// reftable, reflogs, hooks, info/) with its mode, except the names of
// skip at the top and the quarantine; of objects/ only the empty pack/ and
// info/ and the alternates files; git-lfs's files (lfs/) as second names.
// Nothing is flushed here (flushTree).
func copyGitDir(from, to string, skip []string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if rel == "." {
			return keepMode(path, to, d) // made by the caller
		}
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if top == quarantine.Name || slices.Contains(skip, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(to, rel)
		switch {
		case top == "objects":
			return copyObjectsDir(path, dst, filepath.ToSlash(rel), d)
		case top == "lfs" && d.Type().IsRegular():
			return os.Link(path, dst) // git-lfs's objects: never written again
		}
		return copyEntry(path, dst, d)
	})
}

// copyObjectsDir is copyGitDir within objects/ (rel, from the git
// directory): the directories objects, objects/pack and objects/info
// made, the alternates copied, nothing else.
func copyObjectsDir(path, dst, rel string, d fs.DirEntry) error {
	switch rel {
	case "objects", "objects/info", "objects/info/alternates", "objects/info/http-alternates":
		return copyEntry(path, dst, d)
	case "objects/pack":
		if err := copyEntry(path, dst, d); err != nil {
			return err
		}
		return filepath.SkipDir
	}
	if d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

// copyEntry copies the directory (made empty), file or symbolic link at
// path to dst, with its permissions (keepMode).
func copyEntry(path, dst string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	switch {
	case info.IsDir():
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		return keepMode(path, dst, d)
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case !info.Mode().IsRegular():
		return fmt.Errorf("cannot carry %s over: not a file", path)
	}
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err = io.Copy(out, in); err == nil {
		err = out.Chmod(info.Mode().Perm()) // whatever the umask took
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// keepMode gives the directory dst the mode of the one at path (d): its
// permissions whatever the umask took, and its set-group-id bit (a shared
// repository's: what git makes in it then takes its group).
func keepMode(path, dst string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	return os.Chmod(dst, info.Mode()&(fs.ModePerm|fs.ModeSetgid|fs.ModeSticky))
}

// flushTree makes every file and directory under dir durable as one
// batch of the project's scheme (batch.Transaction.Adopt, AdoptDir): each
// file written out, then one full flush for all — the way the filesystem
// asks for it (a directory's sync where ext4 may take fast commits, whose
// recovery fails on some states an fsync of a file leaves), or a flush of
// each where the scheme does not hold.
func flushTree(dir string) error {
	tx := batch.New(batch.OS, dir, batch.Options{Method: batch.Batch}).Begin()
	var dirs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			dirs = append(dirs, path)
		case d.Type().IsRegular():
			return tx.Adopt(path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range slices.Backward(dirs) {
		tx.AdoptDir(d)
	}
	return tx.End()
}
