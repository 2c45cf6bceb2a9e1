package remote

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/nofollow"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/report"
	"github.com/git-durable/git-durable/internal/unpack"
)

// BatchStats is one line of the report.StatsEnv file: a fetch batch.
type BatchStats struct {
	URL string `json:"url"`
	// Repository is the git directory fetched into.
	Repository string `json:"repository,omitempty"`
	Batch      int    `json:"batch"` // 1 for the session's first fetch batch
	objstore.Stats
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

// account adds a batch's stats to the session's line and appends the
// batch's own line to the report.StatsEnv file (git fetch -v shows the
// session's, sayDurable).
func (h *helper) account(stats objstore.Stats, err error) {
	h.line.add(stats)
	bs := BatchStats{URL: h.url, Repository: h.gitDir(), Batch: h.line.Batches, Stats: stats, Promisor: stats.Pack != "" && h.set.promisor(), Shallow: h.shallowed}
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
	h.appendStats(bs)
}

// sayDurable says, with git fetch -v (verbosity 2), in one line at the end
// of a session that fetched or settled anything, what was made durable and
// how — objects, files of the repository, the filesystem, the sync path
// and its flushes — or that nothing was, and why.
func (h *helper) sayDurable() {
	l := h.line
	if h.set.verbosity < 2 || l.Batches == 0 && l.Settled == 0 {
		return
	}
	checked := ""
	if h.checked != "" {
		checked = "; " + h.checked
	}
	if !l.Path.Flushed() {
		why := l.Path.Describe()
		if l.Settings != "" {
			why += "; " + l.Settings
		}
		fmt.Fprintf(h.errw, "durable: not made durable: %d objects and %d files of the repository written, %s%s\n", l.Objects, l.Settled, why, checked)
		return
	}
	fs := l.Filesystem
	if fs == "" {
		fs = l.DescribeFS()
	}
	fmt.Fprintf(h.errw, "durable: %d objects (%d written, %d present, %d repaired) and %d files of the repository made durable on %s (%s: writeout-only %d, hardware-flush %d)%s\n",
		l.Objects, l.Written, l.Existing, l.Repaired, l.Settled, fs, l.Path, l.WriteoutOnly, l.HardwareFlush, checked)
}

// appendStats appends v as one JSON line to the report.StatsEnv file, if
// set.
func (h *helper) appendStats(v any) {
	path := h.env.Getenv(report.StatsEnv)
	if path == "" || !filepath.IsAbs(path) {
		return
	}
	line, err := json.Marshal(v)
	if err != nil {
		return
	}
	// Never through a symbolic link: the runner's file lies in a
	// repository that others may write in.
	if err := nofollow.Append(path, append(line, '\n'), 0o666); err != nil {
		fmt.Fprintf(h.errw, "warning: cannot write %s: %v\n", report.StatsEnv, err)
	}
}

// SessionStats is the line of the report.StatsEnv file that ends every
// session of the helper — every git fetch, clone or push through it, also
// one that found nothing new or failed before any pack (the host down, the
// repository gone, a refused login) — for monitoring: Kind is "session".
type SessionStats struct {
	Kind       string `json:"kind"`
	Time       string `json:"time"` // when it ended, RFC 3339, UTC
	URL        string `json:"url"`
	Repository string `json:"repository,omitempty"`
	// Op is what git asked for: "fetch", "push", or "list" (git
	// ls-remote, or a session that ended before anything else).
	Op string `json:"op"`
	// Result is "fetched" (at least one batch), "up-to-date" (nothing to
	// fetch), "pushed" or "failed", and Error git's last line then.
	Result  string `json:"result"`
	Error   string `json:"error,omitempty"`
	Batches int    `json:"batches"`
	// Objects, Written, Existing, Repaired and Bytes add up the batches.
	Objects  int   `json:"objects"`
	Written  int   `json:"written"`
	Existing int   `json:"existing"`
	Repaired int64 `json:"repaired"`
	Bytes    int64 `json:"bytes"`
	// Checked is how many loose objects the session read to find what a
	// crash broke (0 but in the first session of a boot).
	Checked int `json:"checked"`
	// Settled is how many files of the repository around the objects
	// (refs, HEAD, config, shallow) were made durable as git ended the
	// session.
	Settled  int     `json:"settled"`
	Seconds  float64 `json:"seconds"`
	Settings string  `json:"settings,omitempty"`
	// The session's sync counters, with the settle's flush.
	batch.Stats
}

// add counts a batch's stats into the session's line: its objects, and
// its syncs, under the path of the last batch.
func (s *SessionStats) add(b objstore.Stats) {
	s.Objects += b.Objects
	s.Written += b.Written
	s.Existing += b.Existing
	s.Repaired += b.Repaired
	s.Bytes += b.Bytes
	if b.Settings != "" {
		s.Settings = b.Settings
	}
	s.Stats = plus(b.Stats, s.Stats)
}

// plus is st with the sync counters of more added to its own, under st's
// method and path.
func plus(st, more batch.Stats) batch.Stats {
	st.WriteoutOnly += more.WriteoutOnly
	st.HardwareFlush += more.HardwareFlush
	return st
}

// endSession appends the session's line: err is how it ended, msg the
// fatal line printed for it.
func (h *helper) endSession(err error, msg string) {
	s := h.line
	s.Kind, s.Time, s.URL, s.Repository = "session", time.Now().UTC().Format(time.RFC3339), h.url, h.gitDir()
	s.Seconds = math.Round(time.Since(h.began).Seconds()*1000) / 1000
	if s.Op == "" {
		s.Op = "list"
	}
	switch {
	case err != nil:
		s.Result, s.Error = "failed", h.red.Scrub(msg)
	case s.Op == "push":
		s.Result = "pushed"
	case s.Batches > 0:
		s.Result = "fetched"
	default:
		s.Result = "up-to-date"
	}
	h.appendStats(s)
}

// gitDir is the repository's git directory where it is known.
func (h *helper) gitDir() string {
	if h.local != nil {
		return h.local.GitDir
	}
	if d := h.env.Getenv("GIT_DIR"); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			return abs
		}
	}
	return ""
}

// checkStatsPath warns, once a session, that report.StatsEnv is set to a
// path that is not absolute: it is ignored, as git ignores a relative
// GIT_TRACE, since the helper does not run where git was started.
func (h *helper) checkStatsPath() {
	if path := h.env.Getenv(report.StatsEnv); path != "" && !filepath.IsAbs(path) {
		fmt.Fprintf(h.errw, "warning: %s='%s' is ignored: set it to an absolute path (the helper runs in the repository, not where git was started)\n", report.StatsEnv, path)
	}
}

// writeTrace2 writes git's trace2 fsync counters for the whole session to
// the GIT_TRACE2_EVENT target, as git-unpack-durable does, after the
// negotiations' events, and closes the trace.
func (h *helper) writeTrace2() {
	if h.trace2 == nil {
		h.trace2 = report.OpenTrace2(h.env.Getenv, h.errw)
	}
	h.trace2.Counters(h.line.Stats)
	h.trace2.Close()
}
