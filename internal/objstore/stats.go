package objstore

import (
	"math"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/unpack"
)

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

// Stats reports the run that gave res: what the unpacker did, the objects
// the run repaired, the time since it began and the counters of the
// policy that ran, with the reason when the settings left objects
// unsynced.
func (r *Run) Stats(res unpack.Result) Stats {
	p := r.Policy
	if res.Kept {
		p = r.PackPolicy
	}
	st := p.Stats()
	if st.Path == batch.PathNone && !res.Kept && st.Reason == "" {
		st.Reason = r.Settings.Unsynced
	}
	return Stats{Objects: res.Objects, Bytes: res.Bytes, Written: res.Written, Existing: res.Existing,
		Repaired: r.Repaired(), Seconds: math.Round(time.Since(r.start).Seconds()*1000) / 1000, Pack: res.Pack,
		Settings: r.Settings.Notice, Work: res.Work, Stats: st}
}
