// Package unpack explodes a pack stream into loose objects of a store, the
// job of git unpack-objects, durably. Both commands of the project use it:
// git-unpack-durable on stdin, git-remote-durable on what a server sent.
//
// Data flows one way:
//
//	pack.Reader ──► reader loop ──► workers ──► loose.Store ──► batch.Transaction
//	 (inflate, in     (entries,      (hash, apply    (deflate,       (writeout before
//	  stream order)    delta links)   deltas)         tmp, rename)    rename, one flush)
//
// The stream must be inflated in order to find where entries end; all that
// follows fans out to workers. A delta whose base is done is a job of its
// own, reading the base from a bounded cache or back from the store (one
// loose object); a delta whose base is still in flight waits on that base
// and is resolved, with the base in hand, by the worker that finishes it; a
// REF_DELTA whose base is nowhere yet waits for an object of that id (git's
// delta-before-base). When the pack is kept, a delta whose base has left
// the cache is put off to a second pass that walks each delta tree down
// from its full object, as git index-pack does (later.go): what a pack
// costs does not depend on the order its entries come in.
//
// Each part owns its state: the driver carries jobs from the reader to the
// workers within a memory budget (driver.go); the resolver (run.go)
// keeps the graph of deltas and their bases under its lock; the
// destinations (dest.go: loose objects, packdest.go: a kept pack) write
// objects and read them back; the tally counts what came of it.
package unpack

import (
	"errors"
	"fmt"
	"io"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/object"
)

// Options configures an unpack. The zero value unpacks with git's defaults.
type Options struct {
	// DryRun parses and inflates everything and checks the trailer, but
	// writes nothing and resolves no delta (git unpack-objects -n).
	DryRun bool
	// Recover reports bad entry types, data that does not inflate and
	// unreadable bases, and goes on (git unpack-objects -r).
	Recover bool
	// Strict checks objects like git fsck before they are written, and
	// refuses objects that point at objects neither in the pack nor in the
	// store; nil means no checks. Loose objects are checked as git
	// unpack-objects --strict does, holding commits, trees and tags back; a
	// kept pack as git index-pack --strict does, holding nothing and
	// publishing nothing unless every check passes.
	Strict *fsck.Options
	// MaxInputSize, when positive, limits the bytes consumed.
	MaxInputSize int64
	// BigFileThreshold: non-delta blobs larger than this are streamed to
	// disk instead of being held in memory. Zero means 512 MiB.
	BigFileThreshold int64
	// Workers is the number of resolving goroutines; zero means GOMAXPROCS.
	Workers int
	// CacheSize bounds the delta base cache in bytes; zero means 16 MiB.
	CacheSize int64
	// Messages receives the lines git prints with error() or warning()
	// and goes on from ("error: inflate returned -3\n"); nil discards them.
	Messages io.Writer
	// Progress, when set, is called after each entry with the number of
	// entries read, the total the header declared and the bytes consumed.
	Progress func(done, total int, bytes int64)
	// Receiving, when set and the pack is kept, is called in the place of
	// Progress (git's index-pack says "Receiving objects" where
	// unpack-objects says "Unpacking objects"); Resolving then with the
	// deltas of the pack resolved and their number, once the stream is
	// read and as the deltas left are resolved (not for a pack without
	// deltas, as index-pack).
	Receiving func(done, total int, bytes int64)
	Resolving func(done, total int)
	// Tee, when set, receives a verbatim copy of the pack stream.
	Tee io.Writer
	// Object, when set, is called for every object of the pack once it is
	// resolved and written (or found present, or held under Strict), from
	// the worker goroutines, concurrently. data is the object's content,
	// nil for a streamed big blob; it must not be retained or modified.
	Object func(id object.ID, typ object.Type, data []byte)
	// Keep, when set, keeps the pack (completed if thin) with its index
	// in objects/pack instead of writing loose objects.
	Keep *Keep
	// PackPolicy, when set, publishes a kept pack instead of Run's policy:
	// git syncs the packs it writes by the pack component of core.fsync,
	// loose objects by the loose-object one.
	PackPolicy *batch.Policy
	// Reserve, when set, is told of the memory the run holds for the
	// whole of its length and that grows with the pack (what it records
	// of each entry), in steps of some KiB as entries arrive, and of the
	// room the second pass may take (the deltas put off, the bases its
	// walks hold), as the first delta is put off; with a negative n, of
	// its release as Run returns.
	// cli.ReserveMemory raises the soft memory limit by as much.
	Reserve func(n int64)
	// ReserveRoom, when set, is told of room the run would like above
	// what it holds, so that the garbage collector runs less often (with
	// its entries, up to maxRoom; its release as Run returns).
	// cli.ReserveRoom raises the soft memory limit as far as a ceiling.
	ReserveRoom func(n int64)
	// UnpackLimit, when positive, keeps the pack only if it declares at
	// least that many objects (git's fetch.unpackLimit); smaller packs are
	// exploded.
	UnpackLimit uint32
	// Heal, when set, is called once the whole pack is read, when deltas
	// wait for bases the store has but cannot read (an empty or corrupt
	// loose object), with their ids in order. When it returns nil, it has
	// written those objects anew into the store, and the deltas are
	// resolved against them; else they fail as without it (BaseError).
	Heal func(ids []object.ID) error
}

// Result describes a finished unpack.
type Result struct {
	Objects  int    // entries in the pack
	Written  int    // objects written, repairs included
	Existing int    // objects that were already present
	Bytes    int64  // bytes of the pack before the trailer
	Checksum []byte // the pack's trailer, as received
	Rest     []byte // input read past the trailer, to be passed on
	Pack     string // with Keep: the kept pack's checksum in hex (pack-<Pack>.pack)
	Kept     bool   // the pack was (to be) kept, not exploded: PackPolicy ran
	KeepPath string // with Keep: the .keep file published with it, if any
	Work     Work
}

// Work is what a run inflated and applied, to be set against the number
// of entries: each entry of the stream is inflated once as it arrives, and
// each delta applied once; what is read back (a base that left the cache,
// a delta that waited) is inflated, and a base's chain applied, again.
type Work struct {
	Inflated int64 `json:"inflated"` // zlib streams inflated, the stream's entries included
	Reread   int64 `json:"reread"`   // bytes inflated beyond the stream's: read back
	Patched  int64 `json:"patched"`  // deltas applied
}

// Errors of an unpack, beyond those of package pack and the store.
var (
	// ErrUnresolved means deltas were left whose base is nowhere.
	ErrUnresolved = errors.New("unresolved deltas left after unpacking")
	// ErrRecovered means Recover skipped over errors; the exit is 1.
	ErrRecovered = errors.New("errors were skipped")
)

// DeltaError means a delta did not apply to its base.
type DeltaError struct{ Err error }

func (e *DeltaError) Error() string { return "failed to apply delta: " + e.Err.Error() }

func (e *DeltaError) Unwrap() error { return e.Err }

// BaseError means a delta's base exists but could not be read.
type BaseError struct {
	ID  object.ID
	Err error
}

func (e *BaseError) Error() string {
	return fmt.Sprintf("failed to read delta-pack base object %s: %v", e.ID, e.Err)
}

func (e *BaseError) Unwrap() error { return e.Err }

// CollisionError means an object carries a SHA-1 collision attack.
type CollisionError struct{ ID object.ID }

func (e *CollisionError) Error() string {
	return fmt.Sprintf("SHA-1 appears to be part of a collision attack: %s", e.ID)
}

// StrictError is a --strict refusal: Msg is git's fatal message, Lines
// what git prints with error() just before it.
type StrictError struct {
	Msg   string
	Lines []string
}

func (e *StrictError) Error() string { return e.Msg }
