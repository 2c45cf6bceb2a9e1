package batch

import "strings"

// Flushed reports whether objects written by path are made durable: every
// path but none and writeout-only ends with a full flush.
func (p Path) Flushed() bool { return p != PathNone && p != PathWriteoutOnly }

// Describe says what path does, for a reader of git-remote-durable --check.
func (p Path) Describe() string {
	switch p {
	case PathBatch:
		return "batch: a writeout of each file before its rename, one flush after the last"
	case PathFallback:
		return "fallback-fsync: a full flush of each file and of each directory that received a name (batch is not sound here)"
	case PathFsync:
		return "fsync: a full flush of each file and of each directory that received a name"
	case PathWriteoutOnly:
		return "writeout-only: written out, never flushed (not durable)"
	}
	return "none: no sync at all (core.fsync turns it off)"
}

// DescribeFS says which filesystem the policy of st found, and why it
// syncs as it does there.
func (st Stats) DescribeFS() string {
	if st.Reason != "" {
		return strings.TrimPrefix(st.Reason, "filesystem ")
	}
	if st.Filesystem == "" {
		return "not looked at (nothing to flush)"
	}
	return st.Filesystem
}
