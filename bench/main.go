// Command bench measures git-unpack-durable beside git on the same pack, on
// the same machine, in the same run: `make bench`. It generates a realistic
// pack (the Go distribution's sources with thousands of commits of small
// edits, more than 30,000 objects), then runs every variant into fresh
// repositories, alternating them round after round, and prints medians and
// ratios to git. With -repo or -pack (make bench REPO=… or PACK=…) it then
// measures a real history too: see realHistory.
package main

import (
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
	if len(os.Args) == 3 && os.Args[1] == "cpufloor" {
		fl, err := measureFloor(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "cpufloor:", err)
			os.Exit(1)
		}
		fmt.Println(fl)
		return
	}
	catchSignals()
	if err := bench(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// bench measures what the command line asks for: the generated history,
// then the rows of a real one.
func bench() error {
	o := parseOptions()
	if err := besideGit(o.git); err != nil {
		return err
	}
	var err error
	if o.real.rows, err = parseRows(o.rows); err != nil {
		return err
	}
	r, err := newRunner(o.work, o.bin)
	if err != nil {
		return err
	}
	defer r.close()
	if o.synth {
		if err := synthetic(r, o.work, o.history, o.rounds, o.bigMB); err != nil {
			return err
		}
	}
	if o.real.repo == "" && o.real.pack == "" {
		return nil
	}
	r.cleanup() // room for the real history's runs
	return realRows(r, o)
}

// besideGit puts the directory of the git at path ("" leaves PATH alone)
// first on PATH — every git the bench and the helper run: plain git's
// rows, the git that drives the helper, and the git the helper asks — and
// prints which git the rows are measured beside.
func besideGit(path string) error {
	if path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		os.Setenv("PATH", filepath.Dir(abs)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if out, err := exec.Command("git", "--version").Output(); err == nil {
		fmt.Printf("beside %s", out)
	}
	return nil
}

// realRows measures the rows of the real history, and those of the
// repair and the mirror where the command line asks for them.
func realRows(r *runner, o *options) error {
	rc := o.real
	rc.rounds = o.rounds
	if rc.helper == "" {
		rc.helper = filepath.Join(filepath.Dir(r.bin), "git-remote-durable")
	}
	var err error
	if rc.pack != "" {
		if rc.pack, err = filepath.Abs(rc.pack); err != nil {
			return err
		}
	}
	// The real history's own rows, unless -rows names only the mirror's
	// and the releases' groups.
	for g := range rc.rows {
		if g != "mirror" && g != "releases" {
			if err := realHistory(r, rc); err != nil {
				return err
			}
			break
		}
	}
	if o.repair != "" && rc.repo != "" {
		if err := repairRows(r, rc, o.repair); err != nil {
			return err
		}
	}
	if o.releases != "" && rc.repo != "" {
		if err := releaseRows(r, rc, o.releases, o.mirrorVia); err != nil {
			return err
		}
	}
	if o.mirror == "" || rc.repo == "" {
		return nil
	}
	var sizes []int
	for _, f := range strings.Split(o.sweep, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			sizes = append(sizes, n)
		}
	}
	return mirrorRows(r, rc, mirrorConfig{spec: o.mirror, via: o.mirrorVia, steps: o.mirrorSteps, refs: o.mirrorRefs, sweep: sizes})
}

// synthetic measures every variant on the generated history's pack and
// prints the table and the targets.
func synthetic(r *runner, work string, h history, rounds, bigMB int) error {
	var err error
	if r.packPath, err = generatedPack(work, h); err != nil {
		return err
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

// generatedPack returns the path in work of the generated history's
// pack, which it generates unless an earlier run of the bench left it.
func generatedPack(work string, h history) (string, error) {
	fmt.Fprintf(os.Stderr, "generating the pack (%d files, %d commits)…\n", h.files, h.commits)
	path := filepath.Join(work, fmt.Sprintf("history-%d-%d.pack", h.files, h.commits))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	src := filepath.Join(work, "src")
	os.RemoveAll(src)
	pack, err := generate(src, h)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, pack, 0o644); err != nil {
		return "", err
	}
	os.RemoveAll(src)
	return path, nil
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
