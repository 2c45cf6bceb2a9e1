package mirror

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/mend"
)

// target is a repository the runner found: its git directory, or why it
// is refused without being touched.
type target struct {
	dir     string
	refused error
}

// isRepo reports whether dir looks like a git directory (a bare
// repository, or a work tree's .git): HEAD, objects and refs.
func isRepo(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// find returns the repositories at and under each root: a root that is
// one, or a work tree whose .git is one, stands for itself; else every
// repository below it is found, without descending into one (grokmirror's
// trees nest them: pub/scm/linux/kernel/git/torvalds/linux.git).
// Symbolic links are not followed: a directory that is a link is not
// entered, and a .git that is a link is taken only where it leads to a
// directory under the same root (named by where it leads), and is
// otherwise refused: the repository it leads to is not the tree's to
// repair or update. The list is sorted and has no duplicates. A
// directory below a root that cannot be read (lost+found, root's own, on
// a disk of its own) is no repository: it is passed over and returned
// with why (unreadable); a root that cannot be read is an error.
func find(roots []string) (found []target, unreadable []error, err error) {
	seen := map[string]bool{}
	add := func(t target) {
		if abs, err := filepath.Abs(t.dir); err == nil && !seen[abs] {
			seen[abs] = true
			t.dir = abs
			found = append(found, t)
		}
	}
	for _, root := range roots {
		root, err := filepath.Abs(root)
		if err != nil {
			return nil, nil, err
		}
		real, err := filepath.EvalSymlinks(root)
		if err != nil {
			return nil, nil, err
		}
		var rootErr error
		walk(root, real, add, func(dir string, err error) {
			if dir == root {
				rootErr = err
			} else {
				unreadable = append(unreadable, err)
			}
		})
		if rootErr != nil {
			return nil, nil, rootErr
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].dir < found[j].dir })
	return found, unreadable, nil
}

// walk finds the repositories at and under dir, in the root whose real
// path is real, and gives each to add; a directory it cannot read goes to
// skip, with why.
func walk(dir, real string, add func(target), skip func(dir string, err error)) {
	if isRepo(dir) {
		add(target{dir: dir})
		return
	}
	dotgit := filepath.Join(dir, ".git")
	if st, err := os.Lstat(dotgit); err == nil && st.Mode()&os.ModeSymlink != 0 {
		add(linkedGitDir(dotgit, real))
		return
	} else if err == nil && st.IsDir() && isRepo(dotgit) {
		add(target{dir: dotgit})
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		skip(dir, err)
	}
	for _, e := range entries {
		if scratch(e.Name()) {
			continue // a reclone's new repository, or the old one, mid-swap
		}
		if e.IsDir() {
			walk(filepath.Join(dir, e.Name()), real, add, skip)
		}
	}
}

// scratch reports whether name is that of a reclone's scratch directory
// (mend.ScratchSuffix), which no run takes for a repository.
func scratch(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, mend.ScratchSuffix)
}

// passOver says, one line each, which directories were passed over.
func passOver(w io.Writer, unreadable []error) {
	for _, err := range unreadable {
		fmt.Fprintf(w, "warning: passed over a directory that cannot be read, and is no repository: %s\n", mask.Printable(mask.OneLine(err.Error())))
	}
}

// linkedGitDir is the target of a .git that is a symbolic link: the
// repository it leads to where that is under root (the real path of the
// tree's root), else refused.
func linkedGitDir(link, root string) target {
	to, err := filepath.EvalSymlinks(link)
	switch {
	case err != nil:
		return target{dir: link, refused: &refusal{fmt.Sprintf(".git is a symbolic link that does not resolve: %v", err)}}
	case !within(to, root):
		return target{dir: link, refused: &refusal{fmt.Sprintf(".git is a symbolic link to %s, outside %s", quotePath(to), quotePath(root))}}
	case !isRepo(to):
		return target{dir: link, refused: &refusal{fmt.Sprintf(".git is a symbolic link to %s, which is no git directory", quotePath(to))}}
	}
	return target{dir: to}
}

// within reports whether path is root or below it (both cleaned, absolute
// real paths).
func within(path, root string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}
