// Package report is what a run says of itself: the stats line of an unpack
// (--stats, the remote helper's line per batch) and git's trace2 fsync
// counters.
package report

import (
	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/unpack"
)

// StatsEnv names the environment variable that, set to an absolute path,
// makes the remote helper append one JSON line per fetch batch to that
// file: what the upstream sent, what was written, and the sync counters
// (git's trace2 names), so that a mirror's cron job can see that every
// batch got its writeouts and exactly one hardware flush; and one line
// that ends each of its sessions. The mirror runner points the helpers it
// runs at a file of its own.
const StatsEnv = "GIT_REMOTE_DURABLE_STATS"

// Stats is the line --stats prints, and the heart of each line the remote
// helper records per fetch batch: what the unpack did, and the sync
// counters with git's trace2 names.
type Stats struct {
	Objects  int     `json:"objects"`
	Bytes    int64   `json:"bytes"`
	Written  int     `json:"written"`
	Existing int     `json:"existing"`
	Repaired int64   `json:"repaired"`
	Seconds  float64 `json:"seconds"`        // to the millisecond
	Pack     string  `json:"pack,omitempty"` // the checksum of a pack kept instead of loose objects
	// Settings says how the helper read settings that git reads
	// otherwise (repo.Settings.Notice).
	Settings string `json:"settings,omitempty"`
	// Work says how often entries were inflated and deltas applied.
	unpack.Work
	batch.Stats
}
