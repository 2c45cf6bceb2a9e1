package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
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
	var t repairTimes
	for i := 0; i < c.rounds; i++ {
		if err := b.round(i, &t); err != nil {
			return err
		}
	}
	rc := median(t.reclone)
	fmt.Printf("  git clone --mirror (a reclone)                   %7.2f s\n", rc)
	fmt.Printf("  --verify of the sound mirror / git fsck --full   %7.2f s / %.2f s = %.2fx\n", median(t.verify), median(t.fsck), median(t.verify)/median(t.fsck))
	fmt.Printf("  repair of one damaged packed blob                %7.2f s = %.1f%% of a reclone\n", median(t.repairOne), 100*median(t.repairOne)/rc)
	fmt.Printf("  repair of a %d-object pack cut to a tenth     %7.2f s = %.1f%% of a reclone\n", n, median(t.repairTen), 100*median(t.repairTen)/rc)
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

// repairTimes are the seconds that the runs of the repair rows took, a
// run a round.
type repairTimes struct {
	reclone, fsck, verify, repairOne, repairTen []float64
}

// round measures the round i of the repair rows: a reclone, git fsck
// --full of the sound mirror, and --verify of a copy of each mirror
// damaged (a blob's byte flipped, the newer pack cut to a tenth).
func (b *repairBench) round(i int, t *repairTimes) error {
	syncAll()
	plain := filepath.Join(b.dir, fmt.Sprintf("plain%d.git", i))
	d, err := wall(exec.Command("git", "clone", "-q", "--mirror", b.url, plain))
	if err != nil {
		return err
	}
	os.RemoveAll(plain)
	t.reclone = append(t.reclone, d.Seconds())
	cmd := exec.Command("git", "fsck", "--full", "--no-dangling")
	cmd.Dir = filepath.Join(b.one, "m.git")
	if d, err = wall(cmd); err != nil {
		return err
	}
	t.fsck = append(t.fsck, d.Seconds())
	v, fixed, err := damagedRun(b.env, b.helper, b.one, b.dir, flipBlob)
	if err != nil {
		return err
	}
	t.verify, t.repairOne = append(t.verify, v-fixed), append(t.repairOne, fixed)
	if _, fixed, err = damagedRun(b.env, b.helper, b.ten, b.dir, cutNewest); err != nil {
		return err
	}
	t.repairTen = append(t.repairTen, fixed)
	return nil
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

// damagedRun copies the mirror of tree to a scratch tree, damages it,
// and runs --verify there: the seconds it took, and those its repair took.
func damagedRun(env []string, helper, tree, dir string, damage func(string) error) (float64, float64, error) {
	scratch := filepath.Join(dir, "scratch")
	os.RemoveAll(scratch)
	defer os.RemoveAll(scratch)
	if err := run("", nil, "cp", "-a", tree, scratch); err != nil {
		return 0, 0, err
	}
	if err := damage(filepath.Join(scratch, "m.git")); err != nil {
		return 0, 0, err
	}
	syncAll()
	cmd := exec.Command(helper, "--verify", scratch)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start).Seconds()
	m := repairTook.FindSubmatch(out)
	if err != nil || m == nil {
		return 0, 0, fmt.Errorf("--verify: %v\n%s", err, out)
	}
	fixed, _ := strconv.ParseFloat(string(m[1]), 64)
	return took, fixed, nil
}

// repairTook finds how long the repair took in the runner's line.
var repairTook = regexp.MustCompile(`the mend took ([0-9.]+)s`)
