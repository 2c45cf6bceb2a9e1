package remote

import (
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/sweep"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// sweep finds every broken loose object of the repository — empty, cut
// short, not inflating or not hashing to its name, as a crash of a writer
// that did not sync leaves it — not only those a fetch happens to read,
// and heals it before the fetch: a broken copy of an object that a pack
// holds is removed, the others are fetched again by id from up (where it
// serves objects by id, see upstream.Upload.ByID) and written durably.
//
// Only a crash breaks an object that way, and a boot follows every crash,
// so the check runs once per boot of the machine: the first session after
// one reads every loose object (as git fsck does, on every core), later
// ones only the record that says it was done (sweep.Record) and the
// objects it left broken, which they try again. Where the system does not
// say which boot runs, every session checks.
func (h *helper) sweep(up *upstream.Upload) {
	if h.set.cloning {
		return // a repository git has just made, with no object yet
	}
	r, err := h.lookRepository()
	if err != nil || up.CheckFormat(r.Format) != nil {
		return
	}
	rec, _ := sweep.Read(r.ObjectDir, r.Format)
	for id, t := range rec.Types {
		h.brokenType[id] = t
	}
	ids := rec.Broken
	if !rec.ThisBoot() {
		if ids, err = h.scan(r); err != nil {
			fmt.Fprintf(h.errw, "warning: cannot check the loose objects of the repository: %s\n", mask.Printable(mask.OneLine(err.Error())))
			return
		}
	} else if len(ids) > 0 {
		bad, err := h.unreadable(ids, true) // mended, or removed, since?
		if err != nil {
			return
		}
		ids = ids[:0:0]
		for _, id := range rec.Broken {
			if bad[id] {
				ids = append(ids, id)
			}
		}
	}
	left := ids
	if len(ids) > 0 && up.ByID() {
		left = h.healEach(ids)
	}
	for _, id := range left {
		fmt.Fprintf(h.errw, "warning: %s\n", h.lost(r.ObjectDir, id, up.ByID()))
	}
	if !rec.ThisBoot() || !sameIDs(left, rec.Broken) {
		sweep.Write(r.ObjectDir, left, h.brokenType)
	}
	// Every loose object from before this boot's first session was read
	// whole (by this session, or by that one, as the record says), none is
	// left broken: what a crash broke is healed, and a check of the
	// fetch's connectivity would heal nothing git's own check after it
	// does not find.
	h.swept = len(left) == 0
}

// scan checks every loose object of r and removes the broken copies of
// objects a pack holds; it returns the others.
func (h *helper) scan(r *repo.Repo) ([]object.ID, error) {
	t, err := h.objects(r)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	broken, n, err := t.Store.Scan(runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	h.line.Checked, h.checked = n, fmt.Sprintf("checked %d loose objects in %.3f s for what a crash broke, %d broken", n, time.Since(start).Seconds(), len(broken))
	var ids []object.ID
	for _, b := range broken {
		h.brokenType[b.ID] = b.Type
		if !b.Packed {
			ids = append(ids, b.ID)
			continue
		}
		if err := t.Store.Drop(b.ID); err != nil {
			return nil, err
		}
		fmt.Fprintf(h.errw, "warning: object %s of the repository was broken; removed its loose copy, a pack has it\n", b.ID)
	}
	return ids, nil
}

// lost says what to do about a broken object the upstream did not send.
func (h *helper) lost(objects string, id object.ID, byID bool) string {
	what := "object " + id.String()
	if t, ok := h.brokenType[id]; ok && t != object.Bad {
		what += " (" + t.String() + ")"
	}
	d, rest := id.Shard()
	file := filepath.Join(objects, d, rest)
	if !byID {
		return fmt.Sprintf("%s of the repository is broken, and '%s' does not serve objects by id (protocol v2, or uploadpack.allowAnySHA1InWant): if nothing needs it (git fsck), remove %s; else fetch it from a repository that has it", what, h.url, file)
	}
	return fmt.Sprintf("%s of the repository is broken, and '%s' does not have it: if nothing needs it (git fsck), remove %s; else fetch it from a repository that has it", what, h.url, file)
}

// sameIDs reports whether a and b hold the same ids in the same order.
func sameIDs(a, b []object.ID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
