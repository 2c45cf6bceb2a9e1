package mirror

import (
	"os"
	"path/filepath"
	"sort"
)

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
// Symbolic links are not followed. The list is sorted and has no
// duplicates.
func find(roots []string) ([]string, error) {
	seen := map[string]bool{}
	var repos []string
	add := func(dir string) {
		if abs, err := filepath.Abs(dir); err == nil && !seen[abs] {
			seen[abs] = true
			repos = append(repos, abs)
		}
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		if isRepo(dir) {
			add(dir)
			return nil
		}
		if isRepo(filepath.Join(dir, ".git")) {
			add(filepath.Join(dir, ".git"))
			return nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() {
				if err := walk(filepath.Join(dir, e.Name())); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := walk(r); err != nil {
			return nil, err
		}
	}
	sort.Strings(repos)
	return repos, nil
}
