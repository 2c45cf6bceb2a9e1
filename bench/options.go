package main

import (
	"flag"
	"os"
	"path/filepath"
)

// options are the bench's command line.
type options struct {
	rounds  int    // rounds of every variant
	work    string // scratch directory on the disk under test
	bin     string // the binary to measure
	history history
	bigMB   int  // the single-blob pack's size in MB (0 skips it)
	synth   bool // measure the generated history
	real    realConfig
	// mirror is the mirror rows' "base..end" ("" skips them), mirrorSteps
	// the updates of the mirror's day, sweep the loose objects of the
	// mirrors fetched into with nothing new.
	mirror      string
	mirrorSteps int
	mirrorVia   string // how the mirror rows reach their upstream: file, git, http
	mirrorRefs  int    // refs/pull/N/head refs the mirror rows' upstream holds besides main
	sweep       string
	repair      string // the repair rows' revision ("" skips them)
	releases    string // the release rows' "<date>..<date>" ("" skips them)
	git         string // the git to measure beside ("": git on PATH)
	rows        string // the groups of rows measured (-rows)
}

// parseOptions defines the bench's flags and parses the command line.
func parseOptions() *options {
	o := &options{}
	rc := &o.real
	flag.IntVar(&o.rounds, "rounds", 3, "rounds of every variant (medians are quoted)")
	flag.StringVar(&o.work, "dir", filepath.Join(os.TempDir(), "git-durable-bench"), "scratch directory on the disk under test")
	flag.StringVar(&o.bin, "bin", "bin/git-unpack-durable", "the binary to measure")
	flag.IntVar(&o.history.files, "files", 3000, "source files in the generated history")
	flag.IntVar(&o.history.commits, "commits", 2700, "commits of edits in the generated history")
	flag.IntVar(&o.bigMB, "big", 200, "size of the single-blob pack in MB (0 skips it)")
	flag.BoolVar(&o.synth, "synthetic", true, "measure the generated history (false: only the real history's rows)")
	flag.StringVar(&rc.repo, "repo", "", "real history: a repository whose history is packed and measured too")
	flag.StringVar(&rc.pack, "pack", "", "real history: a pack measured as it is (its history cut from it)")
	flag.StringVar(&rc.rev, "rev", "", "with -repo, what the real pack holds: a revision, or a number N for the first commits\nof `git rev-list --reverse --topo-order HEAD` reaching N objects (default 160000)")
	flag.StringVar(&rc.fetch, "fetch", "", "the mirror fetch, `from..to` (revisions or numbers as -rev; default -rev minus 3000\nobjects, or <rev>~100, to -rev)")
	flag.StringVar(&rc.scale, "scale", "30000,60000,100000,160000", "the scaling curve's packs (revisions or numbers as -rev)")
	flag.IntVar(&rc.tiny, "tiny", 50, "invocations each on a 3-object pack (0 skips it)")
	flag.StringVar(&rc.shapes, "shapes", "revs,daemon,aggressive,sorted,depth", "with -repo or -pack, the orders a server may send the -rev pack in, each from an upstream\nserved by git daemon: explode, --keep and a mirror clone of each (\"\" skips them; see bench/shapes.go)")
	flag.StringVar(&rc.helper, "helper", "", "git-remote-durable (default: beside -bin)")
	flag.BoolVar(&rc.main, "main", true, "with -repo or -pack, measure the rows, the clone and the fetch of the -rev pack itself (false: the shapes only)")
	flag.StringVar(&rc.full, "full", "", "with -repo, a tag whose whole history the repository holds: one mirror clone of it through\nthe helper beside plain git, on protocol v2 (\"\" skips it: it takes minutes)")
	flag.StringVar(&o.mirror, "mirror", "", "with -repo, the mirror rows on `base..end` of its history: incremental fetches of about 10, 100,\n1,000 and 10,000 objects, a mirror's day of -mirror-steps updates and a clone served from it,\nand the fetch with nothing new of -sweep (\"\" skips them)")
	flag.StringVar(&o.mirrorVia, "mirror-via", "file", "with -mirror, how the mirrors reach their upstream: file (file://), git (git daemon) or http\n(git http-backend)")
	flag.IntVar(&o.mirrorRefs, "mirror-refs", 0, "with -mirror, refs/pull/N/head refs the upstream holds besides main, on commits of the base's\nhistory (packed), as a forge's mirror holds its pull requests")
	flag.IntVar(&o.mirrorSteps, "mirror-steps", 30, "the updates of the mirror's day (first-parent steps from base to end)")
	flag.StringVar(&o.sweep, "sweep", "7000,100000", "with -mirror, the loose objects of the mirrors fetched into with nothing new")
	flag.StringVar(&o.repair, "repair", "", "with -repo, the repair rows on a mirror of that revision: --verify beside git fsck --full, and the repair\nof one damaged object and of a damaged pack of 10,000 objects beside a reclone (\"\" skips them)")
	flag.StringVar(&o.releases, "releases", "", "with -repo, the release rows: its history as of `date..date` (2006-01-02) with main, a branch for each\nrelease series and every tag, a mirror and a single-branch clone of the first updated to the\nsecond, over -mirror-via, objects received and times beside plain git (\"\" skips them)")
	flag.StringVar(&o.git, "git", "", "the git to measure beside, and to drive the helper (a path; default: git on PATH)")
	flag.StringVar(&o.rows, "rows", allRows, "with -repo or -pack, the groups of rows measured on the real history and on each shape\n(\"mirror\", \"releases\" or both alone: only the rows of -mirror, -releases)")
	flag.Parse()
	return o
}
