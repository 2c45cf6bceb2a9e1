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
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// copyGitDir makes the git directory to a copy of from without its
// objects: every file and link (configuration, HEAD, refs, packed-refs or
// reftable, reflogs, hooks, info/) with its mode, except the names of
// skip at the top and the quarantine; of objects/ only the empty pack/ and
// info/ and the alternates files. Nothing is flushed here (flushTree).
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
		if rel != "." && (top == quarantine.Name || slices.Contains(skip, rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(to, rel)
		if top == "objects" {
			return copyObjectsDir(path, dst, filepath.ToSlash(rel), d)
		}
		return copyEntry(path, dst, d)
	})
}

// copyObjectsDir is copyGitDir within objects/ (rel, from the git
// directory): the directories objects, objects/pack and objects/info
// made, the alternates copied, nothing else.
func copyObjectsDir(path, dst, rel string, d fs.DirEntry) error {
	switch rel {
	case "objects", "objects/info":
		return copyEntry(path, dst, d)
	case "objects/pack":
		if err := copyEntry(path, dst, d); err != nil {
			return err
		}
		return filepath.SkipDir
	case "objects/info/alternates", "objects/info/http-alternates":
		return copyEntry(path, dst, d)
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

// carry gives the objects directory to (the new clone's) what git could
// read in the repository of f and has does not hold: each sound pack that
// holds such an object, and each such loose object, as a second name of
// the same file (a hard link: the filesystem is one). A damaged pack is
// never carried; where it holds an object has lacks that is not broken,
// the reclone is refused, as it would lose it. A pack whose index cannot
// be read holds nothing git reads. It returns the objects carried.
func carry(f *Findings, to string, has func(object.ID) bool) (int, error) {
	from, format := f.repo.ObjectDir, f.repo.Format
	damaged := map[string]bool{}
	for _, d := range f.Damage {
		if d.Pack != "" {
			damaged[d.Pack] = true
		}
	}
	broken := map[object.ID]bool{}
	for _, id := range f.Report.Broken() {
		broken[id] = true
	}
	carried := map[object.ID]bool{}
	there := func(id object.ID) bool { return has(id) || carried[id] || broken[id] }
	packs, _ := filepath.Glob(filepath.Join(from, "pack", "pack-*.pack"))
	for _, p := range packs {
		base := strings.TrimSuffix(p, ".pack")
		data, err := os.ReadFile(base + ".idx")
		if err != nil {
			continue
		}
		idx, err := pack.ParseIndex(data, format)
		if err != nil {
			continue
		}
		var need []object.ID
		for i := range idx.Count() {
			if id := idx.ID(i); !there(id) {
				need = append(need, id)
			}
		}
		switch {
		case len(need) == 0:
			continue
		case damaged[p]:
			what := "objects"
			if len(need) == 1 {
				what = "object"
			}
			return 0, &NotSwapped{fmt.Errorf("%s is damaged and holds %d %s the upstream did not send", filepath.Base(p), len(need), what)}
		}
		for _, ext := range []string{".pack", ".rev", ".mtimes", ".keep", ".idx"} {
			err := os.Link(base+ext, filepath.Join(to, "pack", filepath.Base(base)+ext))
			if err != nil && (ext == ".pack" || ext == ".idx" || !os.IsNotExist(err)) {
				return 0, err
			}
		}
		for _, id := range need {
			carried[id] = true
		}
	}
	n, err := carryLoose(from, to, there)
	return len(carried) + n, err
}

// carryLoose links each loose object of the objects directory from that
// there does not hold into to; it returns how many.
func carryLoose(from, to string, there func(object.ID) bool) (int, error) {
	n := 0
	for i := range 256 {
		fan := fmt.Sprintf("%02x", i)
		names, err := os.ReadDir(filepath.Join(from, fan))
		if err != nil {
			continue
		}
		for _, e := range names {
			id, err := object.ParseID(fan + e.Name())
			if err != nil || !e.Type().IsRegular() || there(id) {
				continue
			}
			if err := os.Mkdir(filepath.Join(to, fan), 0o777); err != nil && !os.IsExist(err) {
				return n, err
			}
			if err := os.Link(filepath.Join(from, fan, e.Name()), filepath.Join(to, fan, e.Name())); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
