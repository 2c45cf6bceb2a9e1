package unpack

import "github.com/git-durable/git-durable/object"

// entry is what is kept of each pack entry for the whole run.
// Its id is in the table, beside it (table.id).
type entry struct {
	off  int64
	typ  object.Type // the resolved object's type, once done
	done bool
	// later: a delta put off to the second pass (see later.go); needed
	// marks it and its bases there.
	later, needed bool
	// flight: its job went to the workers; counted: a delta waiting for
	// a base in flight (see lead.go).
	flight, counted bool
	crc             uint32 // of the raw entry, when the pack is kept
	base            int32  // a delta's base entry; fullObject, or baseOutside
}

// The base of an entry that is not a delta of another entry.
const (
	fullObject  = -1 // the entry is no delta
	baseOutside = -2 // a delta whose base is no entry (yet): the store's, or awaited
)

// job is one unit of work for a worker: a full object to hash and write, or
// a delta to apply to a base that is done (entry base, or the external
// object baseID when base < 0).
type job struct {
	idx    int32
	typ    object.Type // full object; Bad for a delta
	data   []byte      // object data, or delta payload
	base   int32
	baseID object.ID
	// spilled: data was dropped while the delta waited (see park), and is
	// in the kept pack, or at spillAt in the spill file.
	spilled bool
	spillAt int64
	// tree: the job is the second pass over the deltas put off in the
	// subtree of entry idx (see later.go).
	tree *walk
	// inHand: a delta handed off with its base in hand (see resolveAll).
	inHand *waiter
}
