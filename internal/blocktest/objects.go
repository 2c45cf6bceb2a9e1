//go:build linux

package blocktest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// Objects is what CheckObjects found in an object directory.
type Objects struct {
	// Good holds the id of every object file under its final name that
	// inflates and hashes to that name.
	Good map[string]bool
	// Broken describes every final name that does not (I-b violations):
	// "xx/<rest>: <why>".
	Broken []string
	// Temps counts temporary files (tmp_obj_*), which may hold anything.
	Temps int
}

// CheckObjects reads every file objects/xx/<hex> below the object
// directory dir: it must inflate (loose.Decode) and hash (f.Sum) to its
// name. A missing dir holds no objects.
func CheckObjects(dir string, f object.Format) (*Objects, error) {
	res := &Objects{Good: map[string]bool{}}
	shards, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	rest := 2*f.Size() - 2
	var ids []string
	for _, sh := range shards {
		if !sh.IsDir() || !isHex(sh.Name(), 2) {
			continue
		}
		names, err := os.ReadDir(filepath.Join(dir, sh.Name()))
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			switch {
			case strings.HasPrefix(n.Name(), "tmp_obj_"):
				res.Temps++
			case isHex(n.Name(), rest):
				ids = append(ids, sh.Name()+n.Name())
			}
		}
	}
	whys := make([]string, len(ids))
	var wg sync.WaitGroup
	next := make(chan int)
	for range checkers {
		wg.Go(func() {
			for i := range next {
				whys[i] = checkObject(filepath.Join(dir, ids[i][:2], ids[i][2:]), ids[i], f)
			}
		})
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, id := range ids {
		if whys[i] != "" {
			res.Broken = append(res.Broken, id[:2]+"/"+id[2:]+": "+whys[i])
		} else {
			res.Good[id] = true
		}
	}
	return res, nil
}

// checkers is the number of objects read at once: reads of a freshly
// mounted image wait for the device, so a few in flight overlap them.
const checkers = 8

// checkObject returns why the file name does not hold the object id ("" if
// it does).
func checkObject(name, id string, f object.Format) string {
	raw, err := os.ReadFile(name)
	if err != nil {
		return err.Error()
	}
	t, data, err := loose.Decode(raw)
	if err != nil {
		return fmt.Sprintf("%d bytes: %v", len(raw), err)
	}
	got, err := f.Sum(t, data)
	if err != nil {
		return err.Error()
	}
	if got.String() != id {
		return "hashes to " + got.String()
	}
	return ""
}

// Missing returns the ids of want that are not in o.Good, sorted.
func (o *Objects) Missing(want []string) []string {
	var m []string
	for _, id := range want {
		if !o.Good[id] {
			m = append(m, id)
		}
	}
	slices.Sort(m)
	return m
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}
