package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-durable/git-durable/internal/mend"
)

// repairRows measures git-remote-durable --verify on a mirror of c.repo at
// rev, served by git daemon (with uploadpack.allowFilter, as hosting sites
// serve): the verification of the sound mirror beside git fsck --full; the
// repair of one damaged packed blob, and of a damaged pack of about 10,000
// objects (cut short to a tenth), each beside a reclone (git clone --mirror
// of the same upstream, what grokmirror's reclone_on_errors does). Rounds
// alternate, medians are quoted.
func repairRows(r *runner, c realConfig, rev string) error {
	parent := r.work
	if r.runs != "" {
		parent = r.runs // the journaled ext4: what the repair syncs is measured
	}
	dir := filepath.Join(parent, "repair-bench")
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tip, err := gitOut(c.repo, "rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return err
	}
	older, n, err := tenThousandBefore(c.repo, tip)
	if err != nil {
		return err
	}
	d, err := repairUpstream(c.repo, dir, tip)
	if err != nil {
		return err
	}
	defer d.stop()
	b := &repairBench{helper: c.helper, url: d.url("up.git"), dir: dir, one: filepath.Join(dir, "one"), ten: filepath.Join(dir, "ten")}
	b.env = append(os.Environ(), "PATH="+filepath.Dir(c.helper)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := durableMirror(b.env, b.url, filepath.Join(b.one, "m.git"), ""); err != nil {
		return err
	}
	if err := durableMirror(b.env, b.url, filepath.Join(b.ten, "m.git"), older); err != nil {
		return err
	}
	fmt.Printf("\nrepair rows: a mirror of %s (%s) served by git daemon, %d rounds, medians\n", rev, tip[:12], c.rounds)
	t := repairTimes{mend: map[string][]float64{}, whole: map[string][]float64{}, sees: map[string][]float64{}, all: map[string][]float64{},
		peak: map[string][]float64{}, what: map[string]string{}}
	for i := 0; i < c.rounds; i++ {
		if err := b.round(i, &t); err != nil {
			return err
		}
	}
	t.print(n)
	return nil
}

// repairUpstream makes the upstream dir/up.git at tip, which serves
// filtered fetches, and starts git daemon on dir.
func repairUpstream(repo, dir, tip string) (*daemon, error) {
	up := filepath.Join(dir, "up.git")
	if err := makeUpstream(repo, dir, "up.git", selection{refs: []string{"refs/heads/main " + tip}}); err != nil {
		return nil, err
	}
	if err := run(up, nil, "git", "config", "uploadpack.allowFilter", "true"); err != nil {
		return nil, err
	}
	return startLoggedDaemon(dir, "")
}

// repairBench is what the rounds of the repair rows share: the helper and
// the environment it runs in, the upstream's URL, the scratch directory,
// and the two mirrors whose damaged copies are repaired (one as cloned,
// ten with the tip's last 10,000 or so objects in a pack of their own).
type repairBench struct {
	env      []string
	helper   string
	url, dir string
	one, ten string
}

// damageCase is a damage the rows repair: on a copy of which mirror (ten:
// the one with a pack of the last 10,000 objects), and its goal as a share
// of a reclone's time.
type damageCase struct {
	name   string
	damage func(dir string) error
	ten    bool
	goal   float64
}

var damageCases = []damageCase{
	{"one flipped byte in a blob", flipBlob, false, 0.05},
	{"4 KiB zeroed mid-pack", zeroMid(4 << 10), false, 0.10},
	{"1 MiB zeroed mid-pack", zeroMid(1 << 20), false, 0.25},
	{"the pack cut to 60 %", cutTo(0.6), false, 1.2},
	{"the 10,000-object pack cut to a tenth", cutNewest, true, 0}, // no goal of issue 50
}

// repairTimes are what the runs of the repair rows measured, a run a
// round: seconds, peak RSS in KiB, bytes.
type repairTimes struct {
	reclone, fsck, verify, indexPack, reindex []float64
	fsckKB, verifyKB                          []float64
	mend, whole                               map[string][]float64
	sees, all, peak                           map[string][]float64 // bytes after and during, to the sound mirror's
	what                                      map[string]string    // what the last run found and fetched
}

// round measures the round i of the repair rows: a reclone, git fsck
// --full of the sound mirror beside --verify of it, git index-pack of its
// pack beside the mend of its lost index, and --verify of a copy of a
// mirror damaged each way of damageCases.
func (b *repairBench) round(i int, t *repairTimes) error {
	syncAll()
	plain := filepath.Join(b.dir, fmt.Sprintf("plain%d.git", i))
	d, err := wall(exec.Command("git", "clone", "-q", "--mirror", b.url, plain))
	if err != nil {
		return err
	}
	os.RemoveAll(plain)
	t.reclone = append(t.reclone, d.Seconds())
	sound := filepath.Join(b.one, "m.git")
	secs, kb, err := timed(exec.Command("git", "-C", sound, "fsck", "--full", "--no-dangling"), nil)
	if err != nil {
		return err
	}
	t.fsck, t.fsckKB = append(t.fsck, secs), append(t.fsckKB, float64(kb))
	secs, kb, err = timed(exec.Command(b.helper, "--verify", b.one), b.env)
	if err != nil {
		return err
	}
	t.verify, t.verifyKB = append(t.verify, secs), append(t.verifyKB, float64(kb))
	p, _, err := largestPack(sound)
	if err != nil {
		return err
	}
	copyPack := filepath.Join(b.dir, "copy.pack")
	if err := run("", nil, "cp", p, copyPack); err != nil {
		return err
	}
	secs, _, err = timed(exec.Command("git", "index-pack", "-o", filepath.Join(b.dir, "copy.idx"), copyPack), nil)
	os.Remove(copyPack)
	os.Remove(filepath.Join(b.dir, "copy.idx"))
	if err != nil {
		return err
	}
	t.indexPack = append(t.indexPack, secs)
	r, err := damagedRun(b.env, b.helper, b.one, b.dir, dropIndex)
	if err != nil {
		return err
	}
	t.reindex = append(t.reindex, r.mend)
	soundBytes := float64(dirBytes(filepath.Join(sound, "objects")))
	for _, dc := range damageCases {
		tree := b.one
		if dc.ten {
			tree = b.ten
		}
		r, err := damagedRun(b.env, b.helper, tree, b.dir, dc.damage)
		if err != nil {
			return fmt.Errorf("%s: %v", dc.name, err)
		}
		t.mend[dc.name] = append(t.mend[dc.name], r.mend)
		t.whole[dc.name] = append(t.whole[dc.name], r.total)
		t.sees[dc.name] = append(t.sees[dc.name], float64(r.sees)/soundBytes)
		t.all[dc.name] = append(t.all[dc.name], float64(r.all)/soundBytes)
		t.peak[dc.name] = append(t.peak[dc.name], float64(r.peak)/soundBytes)
		t.what[dc.name] = fmt.Sprintf("%d broken, %d fetched by id", r.broken, r.fetched)
		if r.whole {
			t.what[dc.name] = fmt.Sprintf("%d broken, everything fetched again", r.broken)
		}
	}
	return nil
}

// timed runs cmd (with env, where set) and returns its wall seconds and
// peak RSS in KiB.
func timed(cmd *exec.Cmd, env []string) (float64, int64, error) {
	if env != nil {
		cmd.Env = env
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, errb.String())
	}
	return time.Since(start).Seconds(), maxRSSKB(cmd.ProcessState), nil
}

// tenThousandBefore returns the first-parent ancestor of tip from which
// tip's history brings about 10,000 objects, and how many.
func tenThousandBefore(repo, tip string) (string, int, error) {
	line, err := gitOut(repo, "rev-list", "--first-parent", tip)
	if err != nil {
		return "", 0, err
	}
	chain := strings.Fields(line)
	count := func(i int) int {
		out, _ := gitOut(repo, "rev-list", "--objects", "--count", chain[i]+".."+tip)
		n, _ := strconv.Atoi(strings.TrimSpace(out))
		return n
	}
	i := sort.Search(len(chain), func(i int) bool { return count(i) >= 10000 })
	if i == len(chain) {
		return "", 0, fmt.Errorf("%s's history has fewer than 10,000 objects", tip)
	}
	return chain[i], count(i), nil
}

// durableMirror clones a mirror of url through the helper into dir, its
// pack kept; with older, of that commit first, then fetched to the tip:
// the tip's new objects in a pack of their own.
func durableMirror(env []string, url, dir, older string) error {
	git := func(dir string, args ...string) error {
		cmd := exec.Command("git", append([]string{"-c", "fetch.unpackLimit=1", "-c", "gc.auto=0"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := git("", "clone", "-q", "--mirror", "durable::"+url, dir); err != nil || older == "" {
		return err
	}
	if err := git(dir, "update-ref", "refs/heads/main", older); err != nil {
		return err
	}
	if err := git(dir, "repack", "-a", "-d", "-q"); err != nil {
		return err
	}
	return git(dir, "fetch", "-q", "origin")
}

// damaged is what one --verify of a damaged copy did: its whole time and
// its mend's (from its line), and the bytes of the repository's objects
// git reads (sees: objects/, the quarantine left out) and of all of it
// (all: the quarantine in) after it, and the most of all during it.
type damaged struct {
	total, mend     float64
	sees, all, peak int64
	// broken and fetched count the objects the verify found broken and
	// fetched again by id (its record in the statistics file); whole says
	// that it fetched everything instead.
	broken, fetched int
	whole           bool
}

// damagedRun copies the mirror of tree to a scratch tree, damages it,
// and runs --verify there, the repository's bytes sampled every 50 ms.
func damagedRun(env []string, helper, tree, dir string, damage func(string) error) (damaged, error) {
	var r damaged
	scratch := filepath.Join(dir, "scratch")
	os.RemoveAll(scratch)
	defer os.RemoveAll(scratch)
	if err := run("", nil, "cp", "-a", tree, scratch); err != nil {
		return r, err
	}
	m := filepath.Join(scratch, "m.git")
	beside := filepath.Join(scratch, ".m.git"+mend.ScratchSuffix) // a reclone's new repository
	if err := damage(m); err != nil {
		return r, err
	}
	syncAll()
	stats := filepath.Join(dir, "verify.stats")
	os.Remove(stats)
	defer os.Remove(stats)
	cmd := exec.Command(helper, "--verify", scratch)
	cmd.Env = append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+stats)
	stop := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var most int64
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				peak <- most
				return
			case <-tick.C:
				most = max(most, dirBytes(m, beside))
			}
		}
	}()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	r.total = time.Since(start).Seconds()
	close(stop)
	r.peak = <-peak
	got := repairTook.FindSubmatch(out)
	if err != nil || got == nil {
		return r, fmt.Errorf("--verify: %v\n%s", err, out)
	}
	r.mend, _ = strconv.ParseFloat(string(got[1]), 64)
	if b, err := os.ReadFile(stats); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			var v struct {
				Kind            string
				Broken, Fetched int
				Whole           string  `json:"refetched-whole"`
				Seconds         float64 `json:"mend-seconds"`
			}
			if json.Unmarshal([]byte(l), &v) == nil && v.Kind == "verify" {
				r.broken, r.fetched, r.whole = v.Broken, v.Fetched, v.Whole != ""
				if v.Seconds > 0 {
					r.mend = v.Seconds // to the millisecond; the line's is to a tenth
				}
			}
		}
	}
	r.sees = dirBytes(filepath.Join(m, "objects"))
	r.all = dirBytes(m)
	r.peak = max(r.peak, r.all)
	return r, nil
}

// repairTook finds how long the mend took in the runner's line.
var repairTook = regexp.MustCompile(`(?:mended|recloned) in ([0-9.]+)s`)
