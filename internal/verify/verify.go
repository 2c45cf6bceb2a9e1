package verify

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// Options bound a verification.
type Options struct {
	// Workers resolve and hash packed objects, and read loose ones;
	// 0 means GOMAXPROCS.
	Workers int
	// Rate bounds the bytes per second read from packs, 0 none.
	Rate int64
	// Progress, when set, is told of the bytes of packs read and the
	// objects checked so far, out of their totals, now and then.
	Progress func(stage string, done, total int64)
	// Reserve, when set, is told of the memory a pack's check holds (its
	// index, the workers' caches of delta bases) as it begins, and with a
	// negative n of its release as it ends: cli.ReserveMemory raises the
	// soft memory limit by as much, so that the collector does not run
	// without pause.
	Reserve func(n int64)
}

// Damage is a broken copy of an object, or a file that breaks every
// object of a pack.
type Damage struct {
	// ID names the object; the zero ID where the damage is the pack's as
	// a whole (its index, its trailer).
	ID object.ID
	// Pack is the path of the pack that holds the broken copy, "" for a
	// loose object.
	Pack string
	// Why says what is wrong, in git fsck's words where it has them.
	Why string
	// Own reports that the copy's own bytes are bad (a packed entry's CRC,
	// an entry cut off, a loose file): a good copy of that object mends
	// it. An object that cannot be read only through a broken base is not.
	Own bool
}

// Report is what a verification found.
type Report struct {
	Packs         int // packs read
	PackedObjects int // objects of those packs checked
	LooseObjects  int // loose objects checked
	Damage        []Damage

	broken   []object.ID // Broken, once worked out
	brokenOf int         // of how many damages
}

// Broken returns the ids of the objects some damage names, each once, in
// order. It is worked out once: a pack cut short names tens of thousands.
func (r *Report) Broken() []object.ID {
	if r.broken != nil && r.brokenOf == len(r.Damage) {
		return r.broken
	}
	seen := make(map[object.ID]bool, len(r.Damage))
	ids := []object.ID{}
	for _, d := range r.Damage {
		if !d.ID.IsZero() && !seen[d.ID] {
			seen[d.ID] = true
			ids = append(ids, d.ID)
		}
	}
	slices.SortFunc(ids, func(a, b object.ID) int { return a.Compare(b) })
	r.broken, r.brokenOf = ids, len(r.Damage)
	return ids
}

// Repository verifies the objects directory dir of a repository of format
// f: every pack of dir/pack, then every loose object.
func Repository(ctx context.Context, dir string, f object.Format, opts Options) (*Report, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	rep := &Report{}
	packs, err := packFiles(filepath.Join(dir, "pack"), rep)
	if err != nil {
		return nil, err
	}
	for _, p := range packs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, damage, err := checkPack(ctx, p, f, opts)
		if err != nil {
			return nil, err
		}
		rep.Packs++
		rep.PackedObjects += n
		rep.Damage = append(rep.Damage, damage...)
	}
	store := loose.Open(batch.OS, dir, loose.Options{Format: f})
	defer store.Close()
	broken, n, err := store.Scan(opts.Workers)
	if err != nil {
		return nil, err
	}
	rep.LooseObjects = n
	for _, b := range broken {
		rep.Damage = append(rep.Damage, Damage{ID: b.ID, Why: describeLoose(b), Own: true})
	}
	return rep, nil
}

// packFiles lists the packs of dir by the path of their .pack file, and
// records as damage a pack without its index, or an index without its
// pack (git reads neither).
func packFiles(dir string, rep *Report) ([]string, error) {
	names, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, e := range names {
		has[e.Name()] = true
	}
	var packs []string
	for _, e := range names {
		base, ok := strings.CutSuffix(e.Name(), ".pack")
		if !ok || !strings.HasPrefix(base, "pack-") {
			if base, ok := strings.CutSuffix(e.Name(), ".idx"); ok && strings.HasPrefix(base, "pack-") && !has[base+".pack"] {
				rep.Damage = append(rep.Damage, Damage{Pack: filepath.Join(dir, base+".pack"), Why: "index without its pack"})
			}
			continue
		}
		if !has[base+".idx"] {
			rep.Damage = append(rep.Damage, Damage{Pack: filepath.Join(dir, e.Name()), Why: "pack without its index (git does not read it)"})
			continue
		}
		packs = append(packs, filepath.Join(dir, e.Name()))
	}
	return packs, nil
}

// describeLoose says what is wrong with a broken loose object.
func describeLoose(b loose.Broken) string {
	if b.Err != nil {
		return b.Err.Error()
	}
	return "loose object is corrupt"
}
