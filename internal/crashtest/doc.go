// Package crashtest proves durability claims about traces of file operations:
// the calls a run made (recorded in memory by memfs, or by strace from the
// real binary), the order they must come in (I-order), and the crash states
// a filesystem may leave (docs/crash-model.md in the repository), in each of
// which every object under its final name must be complete (I-b), and after
// a successful return every reported object must be there (I-a).
//
// Both sources become one event model (Event, FromMemfs, FromStrace):
// metadata operations (create, mkdir, rename, link, remove, chmod) that
// join the journal in order, writes into the page cache, writeouts
// (sync_file_range WAIT_BEFORE|WRITE|WAIT_AFTER) that send an inode's data
// to the device without a cache flush, and flushes (fsync, fdatasync,
// syncfs) that force a journal commit behind a cache flush.
//
// Check enumerates the crash states of a trace under one of two models.
//
// M_J (ext4 data=ordered, xfs): a state is a commit point c, 0 ≤ c ≤ n. It
// keeps the metadata operations among the first c events, in order, each
// atomic; each inode holds its data as of its last writeout (an fsync of
// it counts) among those c events, and a name whose inode had none holds
// nothing. A background commit can happen anywhere, so every c is a state:
// I-b is checked in all n+1. An fsync of a file forces the commit point
// past the last metadata operation that touched its inode; of a directory,
// past the last operation on the directory or an entry in it — ext4 and
// xfs commit on fsync only up to the transaction that last touched what is
// synced, not everything before the fsync. syncfs forces everything before
// it. The largest forced point is the Floor: a crash after the return
// leaves a state c ≥ Floor, and I-a is checked in each of them. Data is
// taken as of c even when a later fsync made more of it durable, which is
// pessimistic only for files written again after a rename (none here).
//
// M_P (POSIX-strict, what btrfs behaves like): only an fsync of a file
// makes its data durable; a writeout makes nothing durable; a name is
// durable only once its directory was fsynced after the name was made,
// and a directory the run made only once its parent was. I-b is checked
// in the worst state at each point, where every name made so far shows
// with its inode's fsynced data; I-a in the state after the return where
// only what was fsynced survived.
//
// The walk is incremental: the state at c+1 is the state at c with one
// event applied, and only the names that event touched (or the names of
// the inode it wrote out) are checked again, each check memoized by
// content. A trace of n events over k objects costs O(n) map updates and
// O(k) inflate-and-hash checks, so tens of thousands of objects stay fast.
package crashtest
