// Package loose is git's object store as this project writes it: loose
// objects under objects/xx/<rest>, each zlib("<type> <size>\x00" + data),
// written through a tmp_obj_* file and published by a batch.Transaction.
// It also answers "is this object here already?" and reads objects back,
// from loose files, packs and alternate object directories, so that thin
// packs can be completed and delta bases re-read.
//
// An existing loose object is trusted only after it inflates to its header
// and hashes to its name: an empty or corrupt one — what a crash leaves when
// git did not sync — is replaced ("repaired"), which is how a poisoned
// repository heals on the next fetch.
package loose
