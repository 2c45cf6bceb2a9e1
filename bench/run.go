package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// variant is one command measured.
type variant struct {
	name   string
	git    bool     // stock git (the baseline side)
	config []string // "key=value" through GIT_CONFIG_PARAMETERS
	env    []string
	argv   []string // argv[0] "ours", "git" or "floor"
	base   string   // the variant this one's wall time is compared with
	tmpfs  bool     // runs on /dev/shm (CPU-bound comparison)
	kept   bool     // keeps the pack: no loose objects to count
	synced bool     // followed by `sync -f` on the repository's filesystem, timed together
}

// sample is one measured run.
type sample struct {
	wall, cpu   time.Duration
	rssKB       int64
	writeouts   int64
	flushes     int64
	objectsSeen int
	work        work // ours only: what the unpacker inflated and applied
}

// work is what our unpacker reports having done (--stats, or the remote
// helper's GIT_REMOTE_DURABLE_STATS lines, summed over its batches):
// entries inflated, deltas applied, bytes inflated again.
type work struct {
	Objects  int64 `json:"objects"`
	Inflated int64 `json:"inflated"`
	Patched  int64 `json:"patched"`
	Reread   int64 `json:"reread"`
}

// add sums the work of several unpacks.
func (w work) add(o work) work {
	return work{w.Objects + o.Objects, w.Inflated + o.Inflated, w.Patched + o.Patched, w.Reread + o.Reread}
}

// parseWork sums the JSON lines of text that report an unpack's work;
// other lines are skipped, and so are the helper's session lines, which
// add up its batches.
func parseWork(text string) work {
	var sum work
	for _, line := range strings.Split(text, "\n") {
		var w work
		if strings.HasPrefix(line, "{") && !strings.HasPrefix(line, `{"kind":"session"`) && json.Unmarshal([]byte(line), &w) == nil {
			sum = sum.add(w)
		}
	}
	return sum
}

// runner holds what every run shares.
type runner struct {
	work     string // scratch directory on the disk under test
	runs     string // where the runs' repositories go ("" = work)
	force    bool   // set GIT_DURABLE_FORCE_BATCH for ours
	shm      string // scratch directory on tmpfs
	bin      string // our binary
	self     string // this program, for the floor
	packPath string
	sizes    string // sizes file for the floor
	n        int    // runs so far, for unique names
	last     string // the repository of the last run
}

// repoFor makes a fresh empty bare repository for one run.
func (r *runner) repoFor(v variant) (string, error) {
	r.n++
	parent := r.work
	if r.runs != "" {
		parent = r.runs
	}
	if v.tmpfs {
		parent = r.shm
	}
	dir := filepath.Join(parent, fmt.Sprintf("run%04d", r.n))
	return dir, run(parent, nil, "git", "init", "-q", "--bare", dir)
}

// configParams renders git -c values as GIT_CONFIG_PARAMETERS.
func configParams(kvs []string) string {
	var parts []string
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		parts = append(parts, fmt.Sprintf("'%s'='%s'", k, v))
	}
	return strings.Join(parts, " ")
}

// command builds the exec.Cmd of a variant in repo.
func (r *runner) command(v variant, repo string) *exec.Cmd {
	argv := append([]string{}, v.argv...)
	switch argv[0] {
	case "ours":
		argv[0] = r.bin
		argv = append(argv, "--stats") // its work, as a JSON line on stderr
	case "floor":
		argv = append([]string{r.self, "floor", "-sizes", r.sizes, "-dir", filepath.Join(repo, "objects")}, argv[1:]...)
	}
	if v.synced {
		argv = append([]string{"sh", "-c", `"$@" && exec sync -f .`, "sh"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GIT_DIR="+repo, "GIT_CONFIG_PARAMETERS="+configParams(v.config))
	cmd.Env = append(cmd.Env, v.env...)
	if r.force {
		cmd.Env = append(cmd.Env, "GIT_DURABLE_FORCE_BATCH=1")
	}
	return cmd
}

// measure runs a variant once into a fresh repository. The repositories
// stay until the end of the benchmark: removing tens of thousands of files
// keeps this kind of disk (ext4 with online discard) busy for seconds and
// slows whatever runs next, by up to 10× here.
func (r *runner) measure(v variant) (sample, error) {
	repo, err := r.repoFor(v)
	if err != nil {
		return sample{}, err
	}
	r.last = repo
	syncAll() // start every run with no dirty data of the one before
	time.Sleep(time.Second)
	in, err := os.Open(r.packPath)
	if err != nil {
		return sample{}, err
	}
	defer in.Close()
	cmd := r.command(v, repo)
	cmd.Stdin = in
	s, err := r.timed(cmd)
	if err != nil {
		return s, fmt.Errorf("%s: %v", v.name, err)
	}
	s.objectsSeen = countLoose(filepath.Join(repo, "objects"))
	return s, nil
}

// timed runs cmd and returns its wall and CPU time, its peak RSS and the
// fsync counters it wrote as trace2 events.
func (r *runner) timed(cmd *exec.Cmd) (sample, error) {
	var s sample
	trace := filepath.Join(r.work, "trace2.json")
	os.Remove(trace)
	rssFile := measureRSS(cmd, r.work)
	cmd.Env = append(cmd.Env, "GIT_TRACE2_EVENT="+trace)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	s.wall = time.Since(start)
	if err != nil {
		return s, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	s.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	s.rssKB = maxRSSKB(cmd.ProcessState)
	if rssFile != "" {
		b, _ := os.ReadFile(rssFile)
		s.rssKB, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	s.writeouts, s.flushes = counters(trace)
	s.work = parseWork(stderr.String())
	return s, nil
}

// counters reads git's trace2 fsync counters (both the counter events of
// newer git and ours, and the data events of git 2.36–2.41).
func counters(path string) (writeouts, flushes int64) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Category, Name, Key string
			Count               int64
			Value               any
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Category != "fsync" {
			continue
		}
		n := ev.Count
		if s, ok := ev.Value.(string); ok {
			n, _ = strconv.ParseInt(s, 10, 64)
		}
		switch {
		case ev.Name == "writeout-only" || ev.Key == "fsync/writeout-only":
			writeouts += n
		case ev.Name == "hardware-flush" || ev.Key == "fsync/hardware-flush":
			flushes += n
		}
	}
	return writeouts, flushes
}

// countLoose counts the loose objects under objects/.
func countLoose(dir string) int {
	n, _ := eachLoose(dir, func(string, os.DirEntry) error { return nil })
	return n
}

// measureRSS runs cmd under /usr/bin/time, which writes the command's
// peak RSS (KiB) to the returned file. The rusage this program gets for
// its own child is useless: Go starts children with vfork, and the peak
// of the parent's memory carries over the exec into ru_maxrss. Without
// /usr/bin/time it returns "" and the figure is that inflated one.
func measureRSS(cmd *exec.Cmd, dir string) string {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return ""
	}
	out := filepath.Join(dir, "rss.txt")
	os.Remove(out)
	cmd.Args = append([]string{"/usr/bin/time", "-f", "%M", "-o", out}, cmd.Args...)
	cmd.Path = "/usr/bin/time"
	return out
}

// cleanup removes the repositories of every run.
func (r *runner) cleanup() {
	for _, parent := range []string{r.work, r.runs, r.shm} {
		runs, _ := filepath.Glob(filepath.Join(parent, "run[0-9]*"))
		for _, d := range runs {
			os.RemoveAll(d)
		}
	}
}

// rotate runs every variant once a round, the order rotated every round,
// and checks that each explode left all the objects; with removeEach, a
// run's repository is removed right after it (real histories are too big to
// keep every run until the end).
func rotate(r *runner, vs []variant, rounds, objects int, removeEach bool) (map[string][]sample, error) {
	res := map[string][]sample{}
	bar := newBar(rounds * len(vs))
	for round := 0; round < rounds; round++ {
		for i := range vs {
			v := vs[(i+round)%len(vs)]
			s, err := r.measure(v)
			if removeEach {
				os.RemoveAll(r.last)
			}
			if err != nil {
				return nil, err
			}
			if !v.kept && s.objectsSeen != objects {
				return nil, fmt.Errorf("%s left %d loose objects, want %d", v.name, s.objectsSeen, objects)
			}
			res[v.name] = append(res[v.name], s)
			bar.Add(1)
		}
	}
	bar.Finish()
	return res, nil
}
