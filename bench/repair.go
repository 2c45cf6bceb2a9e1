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
	up := filepath.Join(dir, "up.git")
	if err := makeUpstream(c.repo, dir, "up.git", selection{refs: []string{"refs/heads/main " + tip}}); err != nil {
		return err
	}
	if err := run(up, nil, "git", "config", "uploadpack.allowFilter", "true"); err != nil {
		return err
	}
	d, err := startLoggedDaemon(dir, "")
	if err != nil {
		return err
	}
	defer d.stop()
	url := d.url("up.git")
	env := append(os.Environ(), "PATH="+filepath.Dir(c.helper)+string(os.PathListSeparator)+os.Getenv("PATH"))
	one := filepath.Join(dir, "one")
	if err := durableMirror(env, url, filepath.Join(one, "m.git"), ""); err != nil {
		return err
	}
	ten := filepath.Join(dir, "ten")
	if err := durableMirror(env, url, filepath.Join(ten, "m.git"), older); err != nil {
		return err
	}
	fmt.Printf("\nrepair rows: a mirror of %s (%s) served by git daemon, %d rounds, medians\n", rev, tip[:12], c.rounds)
	var reclone, fsck, verify, repairOne, repairTen []float64
	for i := 0; i < c.rounds; i++ {
		syncAll()
		t, err := wall(exec.Command("git", "clone", "-q", "--mirror", url, filepath.Join(dir, fmt.Sprintf("plain%d.git", i))))
		if err != nil {
			return err
		}
		os.RemoveAll(filepath.Join(dir, fmt.Sprintf("plain%d.git", i)))
		reclone = append(reclone, t.Seconds())
		cmd := exec.Command("git", "fsck", "--full", "--no-dangling")
		cmd.Dir = filepath.Join(one, "m.git")
		if t, err = wall(cmd); err != nil {
			return err
		}
		fsck = append(fsck, t.Seconds())
		v, fixed, err := damagedRun(env, c.helper, one, dir, flipBlob)
		if err != nil {
			return err
		}
		verify, repairOne = append(verify, v-fixed), append(repairOne, fixed)
		if _, fixed, err = damagedRun(env, c.helper, ten, dir, cutNewest); err != nil {
			return err
		}
		repairTen = append(repairTen, fixed)
	}
	rc := median(reclone)
	fmt.Printf("  git clone --mirror (a reclone)                   %7.2f s\n", rc)
	fmt.Printf("  --verify of the sound mirror / git fsck --full   %7.2f s / %.2f s = %.2fx\n", median(verify), median(fsck), median(verify)/median(fsck))
	fmt.Printf("  repair of one damaged packed blob                %7.2f s = %.1f%% of a reclone\n", median(repairOne), 100*median(repairOne)/rc)
	fmt.Printf("  repair of a %d-object pack cut to a tenth     %7.2f s = %.1f%% of a reclone\n", n, median(repairTen), 100*median(repairTen)/rc)
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
var repairTook = regexp.MustCompile(`the repair took ([0-9.]+)s`)

// flipBlob flips a byte in the entry of a blob of the oldest pack of the
// mirror dir.
func flipBlob(dir string) error {
	packs, err := packsByAge(dir)
	if err != nil {
		return err
	}
	idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
	cmd := exec.Command("git", "show-index")
	f, err := os.Open(idx)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd.Stdin = f
	lines, err := cmd.Output()
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(lines), "\n") {
		fs := strings.Fields(l)
		if len(fs) < 2 {
			continue
		}
		if t, _ := gitOut(dir, "cat-file", "-t", fs[1]); strings.TrimSpace(t) == "blob" {
			off, _ := strconv.ParseInt(fs[0], 10, 64)
			return flipAt(packs[0], off+4)
		}
	}
	return fmt.Errorf("no blob in %s", packs[0])
}

// cutNewest cuts the newest pack of the mirror dir to a tenth.
func cutNewest(dir string) error {
	packs, err := packsByAge(dir)
	if err != nil {
		return err
	}
	p := packs[len(packs)-1]
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	os.Chmod(p, 0o644)
	return os.Truncate(p, st.Size()/10)
}

// packsByAge lists the packs of the mirror dir, the oldest first.
func packsByAge(dir string) ([]string, error) {
	packs, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	if err != nil || len(packs) == 0 {
		return nil, fmt.Errorf("no pack in %s: %v", dir, err)
	}
	sort.Slice(packs, func(i, j int) bool {
		a, _ := os.Stat(packs[i])
		b, _ := os.Stat(packs[j])
		return a.ModTime().Before(b.ModTime())
	})
	return packs, nil
}

// flipAt flips the byte at off of the file path.
func flipAt(path string, off int64) error {
	os.Chmod(path, 0o644)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	b := []byte{0}
	if _, err := f.ReadAt(b, off); err != nil {
		return err
	}
	b[0] ^= 0x40
	_, err = f.WriteAt(b, off)
	return err
}
