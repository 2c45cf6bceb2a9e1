// Package verify checks a repository's objects for what can break on disk,
// as git fsck --full does for it: every pack's trailer and index (its own
// checksum, and the pack's it records), each packed object's CRC, inflation
// and hash, and every loose object. It reads, never writes: what it finds
// broken is named by id and by where the broken copy lies, for a repair to
// fetch again. Packs are read once from start to end (the checksum and
// every entry's CRC in one pass, at a rate an operator can bound), then
// every object is resolved and hashed on every core.
package verify
