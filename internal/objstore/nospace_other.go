//go:build !(linux || darwin || freebsd)

package objstore

// NoSpaceHint is "" where the filesystem's inodes cannot be asked for.
func NoSpaceHint(err error, dir string) string { return "" }
