package remote

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-durable/git-durable/internal/target"
	"github.com/git-durable/git-durable/internal/unpack"
)

// StatsEnv names the environment variable that, set to an absolute path,
// makes the helper append one JSON line per fetch batch to that file:
// what the upstream sent, what was written, and the sync counters (git's
// trace2 names), so that a mirror's cron job can see that every batch got
// its writeouts and exactly one hardware flush.
const StatsEnv = "GIT_REMOTE_DURABLE_STATS"

// BatchStats is one line of the StatsEnv file.
type BatchStats struct {
	URL   string `json:"url"`
	Batch int    `json:"batch"` // 1 for the session's first fetch batch
	target.Stats
	// Promisor marks a kept pack published as a promisor pack (with its
	// .promisor, a fifth file under the flush).
	Promisor bool `json:"promisor,omitempty"`
	// Shallow marks a batch after which $GIT_DIR/shallow was written: its
	// writeout is counted with the objects'; the session's last flush
	// makes its name durable, with the refs.
	Shallow bool `json:"shallow,omitempty"`
	// Error says why the batch failed; what was written before is durable.
	Error string `json:"error,omitempty"`
}

// account adds a batch's counters to the session's totals, appends its
// line to the StatsEnv file, and shows it with git fetch -v.
func (h *helper) account(stats target.Stats, err error) {
	st := stats.Stats
	h.totals.Method, h.totals.Path, h.totals.Reason, h.totals.Filesystem = st.Method, st.Path, st.Reason, st.Filesystem
	h.totals.WriteoutOnly += st.WriteoutOnly
	h.totals.HardwareFlush += st.HardwareFlush
	bs := BatchStats{URL: h.url, Batch: h.batchN, Stats: stats, Promisor: stats.Pack != "" && h.set.promisor(), Shallow: h.shallowed}
	h.shallowed = false
	switch {
	case err != nil && h.ctx.Err() != nil:
		// Whatever failed (a read from a connection the signal closed)
		// failed because of the interrupt.
		bs.Error = "interrupted"
	case err != nil && unpack.Local(err): // the error() lines too, on the same line
		lines, _ := unpack.Describe(err)
		bs.Error = h.red.Scrub(joinText(lines))
	case err != nil:
		bs.Error = h.describe(&packError{err: err})
	}
	if h.set.verbosity >= 2 {
		fmt.Fprintf(h.errw, "durable: %d objects (%d written, %d present, %d repaired), %s: writeout-only %d, hardware-flush %d\n",
			bs.Objects, bs.Written, bs.Existing, bs.Repaired, st.Path, st.WriteoutOnly, st.HardwareFlush)
	}
	path := h.env.Getenv(StatsEnv)
	if path == "" || !filepath.IsAbs(path) {
		return
	}
	line, err := json.Marshal(bs)
	if err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		fmt.Fprintf(h.errw, "warning: cannot write %s: %v\n", StatsEnv, err)
		return
	}
	defer f.Close()
	f.Write(append(line, '\n'))
}

// checkStatsPath warns, once a session, that StatsEnv is set to a path
// that is not absolute: it is ignored, as git ignores a relative
// GIT_TRACE, since the helper does not run where git was started.
func (h *helper) checkStatsPath() {
	if path := h.env.Getenv(StatsEnv); path != "" && !filepath.IsAbs(path) {
		fmt.Fprintf(h.errw, "warning: %s='%s' is ignored: set it to an absolute path (the helper runs in the repository, not where git was started)\n", StatsEnv, path)
	}
}

// writeTrace2 writes git's trace2 fsync counters for the whole session to
// the GIT_TRACE2_EVENT target, as git-unpack-durable does.
func (h *helper) writeTrace2() {
	target.WriteTrace2(h.env.Getenv, h.errw, h.totals)
}
