package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// countLoose counts the loose objects under objects/.
func countLoose(dir string) int {
	n, _ := eachLoose(dir, func(string, os.DirEntry) error { return nil })
	return n
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

// measureRows runs the variants vs as rotate does, each run's repository
// removed after it, and summarizes each one's samples.
func measureRows(r *runner, vs []variant, rounds, objects int) (map[string]stats, error) {
	res, err := rotate(r, vs, rounds, objects, true)
	if err != nil {
		return nil, err
	}
	st := map[string]stats{}
	for _, v := range vs {
		st[v.name] = summarize(res[v.name])
	}
	return st, nil
}
