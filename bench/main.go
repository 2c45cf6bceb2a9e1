// Command bench measures git-unpack-durable beside git on the same pack, on
// the same machine, in the same run: `make bench`. It generates a realistic
// pack (the Go distribution's sources with thousands of commits of small
// edits, more than 30,000 objects), then runs every variant into fresh
// repositories, alternating them round after round, and prints medians and
// ratios to git. With -repo or -pack (make bench REPO=… or PACK=…) it then
// measures a real history too: see realHistory.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		if err := floor(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		return
	}
	catchSignals()
	if err := bench(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func bench() error {
	rounds := flag.Int("rounds", 3, "rounds of every variant (medians are quoted)")
	work := flag.String("dir", filepath.Join(os.TempDir(), "git-durable-bench"), "scratch directory on the disk under test")
	bin := flag.String("bin", "bin/git-unpack-durable", "the binary to measure")
	files := flag.Int("files", 3000, "source files in the generated history")
	commits := flag.Int("commits", 2700, "commits of edits in the generated history")
	bigMB := flag.Int("big", 200, "size of the single-blob pack in MB (0 skips it)")
	synth := flag.Bool("synthetic", true, "measure the generated history (false: only the real history's rows)")
	var rc realConfig
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
	mirrorSpec := flag.String("mirror", "", "with -repo, the mirror rows on `base..end` of its history: incremental fetches of about 10, 100,\n1,000 and 10,000 objects, a mirror's day of -mirror-steps updates and a clone served from it,\nand the fetch with nothing new of -sweep (\"\" skips them)")
	mirrorSteps := flag.Int("mirror-steps", 30, "the updates of the mirror's day (first-parent steps from base to end)")
	sweepSizes := flag.String("sweep", "7000,100000", "with -mirror, the loose objects of the mirrors fetched into with nothing new")
	repairRev := flag.String("repair", "", "with -repo, the repair rows on a mirror of that revision: --verify beside git fsck --full, and the repair\nof one damaged object and of a damaged pack of 10,000 objects beside a reclone (\"\" skips them)")
	gitPath := flag.String("git", "", "the git to measure beside, and to drive the helper (a path; default: git on PATH)")
	rows := flag.String("rows", allRows, "with -repo or -pack, the groups of rows measured on the real history and on each shape")
	flag.Parse()
	var err error
	if *gitPath != "" {
		// Every git the bench and the helper run: plain git's rows, the
		// git that drives the helper, and the git the helper asks.
		abs, err := filepath.Abs(*gitPath)
		if err != nil {
			return err
		}
		os.Setenv("PATH", filepath.Dir(abs)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if out, err := exec.Command("git", "--version").Output(); err == nil {
		fmt.Printf("beside %s", out)
	}
	if rc.rows, err = parseRows(*rows); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	binPath, err := filepath.Abs(*bin)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*work, 0o755); err != nil {
		return err
	}
	shm, err := os.MkdirTemp("/dev/shm", "git-durable-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(shm)
	r := &runner{work: *work, shm: shm, bin: binPath, self: self}
	defer r.cleanup()
	if mnt, undo, err := journaled(*work, 16<<30); err == nil {
		defer undo()
		r.runs = mnt
		fmt.Println("runs on a journaled ext4 on a loop device (direct I/O) backed by a file in", *work)
	} else {
		r.force = true
		fmt.Printf("runs in %s without a journaled ext4 (%v): GIT_DURABLE_FORCE_BATCH=1, batch is measured but not durable there\n", *work, err)
	}

	if *synth {
		if err := synthetic(r, *work, history{*files, *commits}, *rounds, *bigMB); err != nil {
			return err
		}
	}
	if rc.repo == "" && rc.pack == "" {
		return nil
	}
	r.cleanup() // room for the real history's runs
	rc.rounds = *rounds
	if rc.helper == "" {
		rc.helper = filepath.Join(filepath.Dir(binPath), "git-remote-durable")
	}
	if rc.pack != "" {
		if rc.pack, err = filepath.Abs(rc.pack); err != nil {
			return err
		}
	}
	if err := realHistory(r, rc); err != nil {
		return err
	}
	if *repairRev != "" && rc.repo != "" {
		if err := repairRows(r, rc, *repairRev); err != nil {
			return err
		}
	}
	if *mirrorSpec == "" || rc.repo == "" {
		return nil
	}
	var sizes []int
	for _, f := range strings.Split(*sweepSizes, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			sizes = append(sizes, n)
		}
	}
	return mirrorRows(r, rc, *mirrorSpec, *mirrorSteps, sizes)
}

// synthetic measures every variant on the generated history's pack and
// prints the table and the targets.
func synthetic(r *runner, work string, h history, rounds, bigMB int) error {
	fmt.Fprintf(os.Stderr, "generating the pack (%d files, %d commits)…\n", h.files, h.commits)
	r.packPath = filepath.Join(work, fmt.Sprintf("history-%d-%d.pack", h.files, h.commits))
	if _, err := os.Stat(r.packPath); err != nil {
		src := filepath.Join(work, "src")
		os.RemoveAll(src)
		pack, err := generate(src, h)
		if err != nil {
			return err
		}
		if err := os.WriteFile(r.packPath, pack, 0o644); err != nil {
			return err
		}
		os.RemoveAll(src)
	}
	info, err := describePack(r.packPath)
	if err != nil {
		return err
	}
	fmt.Printf("pack: %s\n", info)

	// The floor needs the sizes of the files a real unpack creates.
	ref := variant{name: "reference", argv: []string{"ours", "-q"}, config: []string{"core.fsync=none"}}
	repo, err := r.repoFor(ref)
	if err != nil {
		return err
	}
	cmd := r.command(ref, repo)
	cmd.Stdin, _ = os.Open(r.packPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("reference unpack: %v\n%s", err, out)
	}
	r.sizes = filepath.Join(work, "sizes.txt")
	objects, err := writeSizes(filepath.Join(repo, "objects"), r.sizes)
	if err != nil {
		return err
	}
	_, largest, err := objectSizes(repo)
	if err != nil {
		return err
	}
	// The reference repository stays until cleanup, like every run's.
	fmt.Printf("unpacked: %d objects, the largest %d bytes\n", objects, largest)

	vs := variants()
	results, err := rotate(r, vs, rounds, objects, false)
	if err != nil {
		return err
	}
	sys, err := syscallsPerObject(r, objects)
	if err != nil {
		return err
	}
	var big []sample
	if bigMB > 0 {
		if big, err = bigBlob(r, bigMB); err != nil {
			return err
		}
	}
	report(os.Stdout, vs, results, objects, largest, sys, big, bigMB)
	return nil
}

func newBar(n int) *progressbar.ProgressBar {
	return progressbar.NewOptions(n,
		progressbar.OptionSetWriter(plainWriter{os.Stderr}), // no Sync() on stderr
		progressbar.OptionSetDescription("runs"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetVisibility(term.IsTerminal(int(os.Stderr.Fd()))),
		progressbar.OptionClearOnFinish(),
	)
}

// plainWriter hides *os.File from progressbar, which would fsync it.
type plainWriter struct{ w *os.File }

func (p plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }

// objectSizes returns the sum of the sizes of the objects in the bare
// repository repo, and the largest.
func objectSizes(repo string) (sum, largest int64, err error) {
	out, err := exec.Command("git", "--git-dir", repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectsize)").Output()
	if err != nil {
		return 0, 0, fmt.Errorf("git cat-file in %s: %v", repo, err)
	}
	for _, f := range strings.Fields(string(out)) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("git cat-file in %s: %q", repo, f)
		}
		sum += n
		largest = max(largest, n)
	}
	return sum, largest, nil
}
