//go:build !windows

package batch

import "os"

// flushPath opens name and fully flushes it: fsync, or F_FULLFSYNC on darwin
// (os.File.Sync). It is fsync rather than fdatasync because the change to
// commit is a rename, which touched the inode's ctime, not its data.
func flushPath(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func flushDir(name string) error { return flushPath(name) }
