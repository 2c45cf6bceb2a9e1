// Package batch is the durability policy of an object store: it decides
// which syncs each object write gets, through a small filesystem interface
// (FS) that a test can replace to record every operation.
//
// The method this project exists for is Batch. Every object is written to a
// temporary file and given a writeout-only sync — data sent to the device,
// no cache flush (Linux sync_file_range WAIT_BEFORE|WRITE|WAIT_AFTER) —
// before it is renamed to its final name. The first object of a batch is
// First, the following ones Middle; when the batch ends, the object whose
// rename really came last becomes Last and gets one full flush after that
// rename. On a journaled filesystem (ext4, xfs) that flush commits the
// journal transaction holding the last rename and every transaction before
// it, and the journal commit is preceded by a device cache flush, so every
// object written out before its rename is durable under its final name. A
// crash at any point leaves no final name holding an incomplete object,
// because no name is created before its data was written out. The
// writeback of each file is started as soon as it is written
// (Transaction.Written, Starter), so that the writeout waited for before
// the rename has mostly happened while the caller went on.
//
// Which write is last is only known at the end — a parallel pipeline
// finishes writes in any order — so the batch assigns the flags itself:
// renames are serialized and recorded, and End flushes the file renamed last.
// Flushing any other file would not do: ext4 and xfs commit on fsync only up
// to the transaction that last touched the file being synced.
//
// On ext4 with fast commits (or where they cannot be ruled out) an fsync of
// a regular file is a fast commit, which the kernel's recovery cannot always
// replay; there every full flush is an fsync of a directory, a full journal
// commit (Kind.DirCommit): the batch's one flush syncs the directory of the
// object renamed last. Any user can learn whether they are on, on Linux 6.18
// and later (EXT4_IOC_GET_TUNE_SB_PARAM); elsewhere root reads the
// superblock, and other users get "fast_commit unknown". Where such a
// filesystem is also not sound (journal_async_commit), a directory commit
// may flush nothing, and each object also gets an fdatasync for the cache
// flush.
//
// Where the scheme is not sound (btrfs, filesystems not known to order data
// writeout before a later journal commit, systems without writeout-only
// sync) the batch falls back to a full flush of every object before its
// rename and of every directory that received a new name, and reports it.
package batch
