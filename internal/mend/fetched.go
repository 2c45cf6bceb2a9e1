package mend

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// fetchedPacks are the packs a refetch wrote, whose every object the
// unpack hashed as it came: the good copies of the broken ones.
type fetchedPacks []*pack.File

// openFetched opens the packs at paths (those it cannot read are left
// out), and returns them with what closes them.
func openFetched(paths []string, f object.Format) (fetchedPacks, func()) {
	var files fetchedPacks
	var opened []*os.File
	for _, p := range paths {
		data, err := os.ReadFile(strings.TrimSuffix(p, ".pack") + ".idx")
		x, xerr := pack.ParseIndex(data, f)
		file, ferr := os.Open(p)
		if err != nil || xerr != nil || ferr != nil {
			if ferr == nil {
				file.Close()
			}
			continue
		}
		opened = append(opened, file)
		files = append(files, pack.NewFile(file, x, f))
	}
	return files, func() {
		for _, o := range opened {
			o.Close()
		}
	}
}

// has reports whether one of the packs holds id.
func (fp fetchedPacks) has(id object.ID) bool {
	for _, pf := range fp {
		if pf.Has(id) {
			return true
		}
	}
	return false
}

// goodCopies returns what reads the good copy of an object: from the
// fetched packs, else from the store, its hash checked (a damaged pack's
// copy may inflate to something else).
func goodCopies(store *loose.Store, f object.Format, fetched fetchedPacks) func(object.ID) (pack.Base, error) {
	return func(id object.ID) (pack.Base, error) {
		for _, pf := range fetched {
			if typ, data, err := pf.Object(id); err == nil {
				if got, err := f.Sum(typ, data); err == nil && got == id {
					return pack.Base{ID: id, Type: typ, Data: data}, nil
				}
			}
		}
		typ, data, err := store.Read(id)
		if err == nil {
			var got object.ID
			if got, err = f.Sum(typ, data); err == nil && got != id {
				err = fmt.Errorf("its copy hashes to %s", got)
			}
		}
		return pack.Base{ID: id, Type: typ, Data: data}, err
	}
}

// stillBroken reads again every object the verification found broken,
// as git would (a good loose copy first), but those the fetched packs hold
// (the unpack hashed them as they came), and returns those that still
// cannot be read.
func stillBroken(r *repo.Repo, f *Findings, fetched fetchedPacks) []object.ID {
	store := loose.Open(batch.OS, r.ObjectDir, loose.Options{Format: r.Format})
	defer store.Close()
	var left []object.ID
	for _, id := range f.Report.Broken() {
		if fetched.has(id) {
			continue
		}
		typ, data, err := store.Read(id)
		if err == nil {
			var got object.ID
			if got, err = r.Format.Sum(typ, data); err == nil && got != id {
				err = errors.New("hash mismatch")
			}
		}
		if err != nil {
			left = append(left, id)
		}
	}
	return left
}
