//go:build linux

package integration

import "github.com/git-durable/git-durable/internal/blocktest"

// ext4With returns the 32 MB ext4 of the block tests, made with the extra
// mkfs arguments args and mounted with the options opts.
func ext4With(opts string, args ...string) blocktest.FS {
	fsys := blocktest.Ext4(32 << 20)
	fsys.Mkfs = append(append([]string{}, fsys.Mkfs...), args...)
	fsys.Options = opts
	return fsys
}
