// Package pack reads git's pack format: the stream a server sends on fetch
// (Reader), the deltas inside it (ApplyDelta), and the index files that make
// a stored pack searchable (Index).
//
// A pack stream is
//
//	"PACK" | version (be32, 2 or 3) | count (be32)
//	count × entry
//	trailer: the hash of everything before it (SHA-1 or SHA-256)
//
// and every entry is
//
//	type and size: byte 0 = MSB | type (3 bits) | size bits 0–3,
//	               further bytes = MSB | 7 more size bits, little end first
//	OFS_DELTA:     base distance, big-endian base-128 with +1 per extra byte
//	REF_DELTA:     the base object id, raw
//	zlib data:     the object (or the delta) inflating to exactly size bytes
//
// The package knows nothing about files, repositories or configuration.
// See https://git-scm.com/docs/gitformat-pack.
package pack
