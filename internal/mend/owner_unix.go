//go:build unix

package mend

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ownLike gives every file and directory under to, a new git directory
// built from the one at from, the owner and group of its namesake there,
// or, for what from does not have (the fetched pack, a fan-out
// directory), of the nearest directory above it that from has: run as
// root, a reclone leaves the repository its owner's, and in a shared
// repository its group's. Only root changes an owner; anyone else sets
// the group where it may, and leaves it where it may not.
func ownLike(from, to string) error {
	root := os.Geteuid() == 0
	return filepath.WalkDir(to, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(to, path)
		src := filepath.Join(from, rel)
		var want *syscall.Stat_t
		for {
			if st, err := os.Lstat(src); err == nil {
				want, _ = st.Sys().(*syscall.Stat_t)
				break
			}
			if src == from || src == filepath.Dir(src) {
				return nil
			}
			src = filepath.Dir(src)
		}
		st, err := os.Lstat(path)
		if err != nil || want == nil {
			return err
		}
		have, _ := st.Sys().(*syscall.Stat_t)
		switch {
		case have == nil:
		case root && (have.Uid != want.Uid || have.Gid != want.Gid):
			return os.Lchown(path, int(want.Uid), int(want.Gid))
		case !root && have.Gid != want.Gid:
			os.Lchown(path, -1, int(want.Gid)) // not a group of ours: as it is
		}
		return nil
	})
}
