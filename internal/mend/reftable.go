package mend

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/reftable"
	"github.com/git-durable/git-durable/object"
)

// tidyReftable sets aside the tables of the reftable stack of the git
// directory dir that git cannot read: named in tables.list but missing,
// empty or torn (not whole as git writes one) — what a crash leaves of a
// table written without a sync, after which git reads no ref at all
// (for-each-ref prints nothing, a fetch dies). tables.list is written again
// without them first, under git's lock, written out before its rename and
// flushed after it, the old one kept in the quarantine; then the tables
// are set aside. The refs they held come back with the update's fetch (a
// mirror's refs are its upstream's); meanwhile an older table's value of
// a ref shows, as git shows it. A tables.list.lock that is there (a live
// writer: Tidy set the stale ones aside before) leaves the stack alone.
// It returns the tables set aside or named but missing.
func tidyReftable(dir string, o TidyOptions) ([]string, error) {
	table := filepath.Join(dir, "reftable")
	names, err := reftable.Stack(o.FS.ReadFile, table)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var keep, torn []string
	for _, name := range names {
		if tableReadable(o.FS, filepath.Join(table, name)) {
			keep = append(keep, name)
		} else {
			torn = append(torn, name)
		}
	}
	if len(torn) == 0 {
		return nil, nil
	}
	content := ""
	if len(keep) > 0 {
		content = strings.Join(keep, "\n") + "\n"
	}
	err = writeLocked(filepath.Join(table, "tables.list"), []byte(content), o.FS, o.Quarantine)
	if errors.Is(err, fs.ErrExist) {
		return nil, nil // a writer holds the stack: the update fails in git's words
	}
	if err != nil {
		return nil, err
	}
	for _, name := range torn {
		err := o.Quarantine.Retire(filepath.Join(table, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return torn, err
		}
	}
	return torn, nil
}

// tableReadable reports whether the table at path is one git reads: there,
// a regular file, and whole (reftable.Refs).
func tableReadable(fsys batch.FS, path string) bool {
	b, err := fsys.ReadFile(path)
	if err != nil {
		return false
	}
	return reftable.Refs(b, func(string, object.ID, reftable.Kind) {}) == nil
}
