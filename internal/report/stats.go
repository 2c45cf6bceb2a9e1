// Package report is what a run says of itself: git's trace2 fsync
// counters, and where the remote helper's statistics lines go (StatsEnv;
// the line of an unpack is objstore.Stats).
package report

// StatsEnv names the environment variable that, set to an absolute path,
// makes the remote helper append one JSON line per fetch batch to that
// file: what the upstream sent, what was written, and the sync counters
// (git's trace2 names), so that a mirror's cron job can see that every
// batch got its writeouts and exactly one hardware flush; and one line
// that ends each of its sessions. The mirror runner points the helpers it
// runs at a file of its own.
const StatsEnv = "GIT_REMOTE_DURABLE_STATS"
