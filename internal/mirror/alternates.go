package mirror

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/internal/nofollow"
)

// maxAlternateDepth is how deep git follows the alternates of alternates
// (object-file.c, link_alt_odb_entries).
const maxAlternateDepth = 5

// awayError says that an object store a repository borrows from is not
// there: a mount not up yet, a store moved. Every object the borrower
// takes from it reads as missing, so an update would fetch them all again,
// and a repair would take every ref for broken: the runner does neither.
type awayError struct {
	store string
	err   error
}

func (e *awayError) Error() string {
	return fmt.Sprintf("object directory %s does not exist (%v); check objects/info/alternates: not updated while it is away",
		quotePath(e.store), e.err)
}

// checkAlternates checks that every object directory the objects
// directory of the git directory dir borrows from (objects/info/alternates,
// and theirs, as deep as git follows them) is there and readable.
func checkAlternates(dir string) error {
	return checkAlternatesOf(filepath.Join(dir, "objects"), 0)
}

// checkAlternatesOf checks the alternates of the objects directory objs.
func checkAlternatesOf(objs string, depth int) error {
	b, err := nofollow.ReadFile(filepath.Join(objs, "info", "alternates"))
	if errors.Is(err, fs.ErrNotExist) || depth > maxAlternateDepth {
		return nil
	}
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		if l[0] == '"' {
			if u, err := strconv.Unquote(l); err == nil {
				l = u
			}
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(objs, l)
		}
		st, err := os.Stat(l)
		if err == nil && !st.IsDir() {
			err = errors.New("not a directory")
		}
		if err == nil {
			var f *os.File
			if f, err = os.Open(l); err == nil {
				_, err = f.Readdirnames(1)
				f.Close()
				if errors.Is(err, io.EOF) {
					err = nil
				}
			}
		}
		if err != nil {
			return &awayError{store: l, err: cutPath(err)}
		}
		if err := checkAlternatesOf(l, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// cutPath is err without the path an *fs.PathError repeats.
func cutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
