package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// mirrorVariant is one way a mirror fetches: through the helper with its
// defaults, plain git with its defaults, or plain git with its own durable
// configuration (core.fsync=committed, core.fsyncMethod=batch: a kept
// pack's files each fsynced, the refs too).
type mirrorVariant struct {
	name    string
	durable bool
	config  []string
}

var mirrorVariants = []mirrorVariant{
	{name: "ours", durable: true},
	{name: "git", config: nil},
	{name: "git durable", config: []string{"core.fsync=committed", "core.fsyncMethod=batch"}},
}

// mirrorBench holds what the mirror rows share: the upstream (a bare
// repository borrowing the history's objects, whose main is moved from
// commit to commit) and the template mirror cloned at the base.
type mirrorBench struct {
	r        *runner
	src      string // the history
	up       string // the upstream
	template string // a mirror clone of the base, by plain git
	helper   string // the helper's directory, first on PATH
	url      string // the upstream's, as the rows fetch it (-mirror-via)
	rounds   int
}

// mirrorConfig is what the mirror rows measure: the history's "base..end"
// (spec), the transport (via), the updates of the day (steps), the
// refs/pull/N/head the upstream holds besides main (refs) and the loose
// objects of the sweep rows.
type mirrorConfig struct {
	spec, via   string
	steps, refs int
	sweep       []int
}

// mirrorRows measures a mirror's work beside plain git, on the history of
// c.repo from the revision base to end (mc.spec "base..end"): incremental
// fetches of about 10, 100, 1,000 and 10,000 objects into a mirror of
// base; a mirror's day — steps first-parent updates from base to end with
// git remote update --prune, the files they leave under objects/, and a
// downstream clone served from the mirror; and, for each size of sweep, a
// fetch with nothing new into a mirror holding that many loose objects, in
// the first session of a boot and in a later one.
func mirrorRows(r *runner, c realConfig, mc mirrorConfig) error {
	spec := mc.spec
	base, end, ok := strings.Cut(spec, "..")
	if !ok {
		return fmt.Errorf("-mirror %q: want <base>..<end>", spec)
	}
	m := &mirrorBench{r: r, src: c.repo, rounds: c.rounds}
	dir := filepath.Join(r.work, "mirror-bench")
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var err error
	// The helper itself, not the shim that measures its memory (sh and
	// /usr/bin/time: two programs more on each fetch).
	if m.helper, err = filepath.Abs(filepath.Dir(c.helper)); err != nil {
		return err
	}
	if base, err = gitOut(c.repo, "rev-parse", "--verify", base+"^{commit}"); err != nil {
		return err
	}
	m.up = filepath.Join(dir, "up.git")
	var stop func()
	if m.url, stop, err = upstreamURL(dir, mc.via); err != nil {
		return err
	}
	defer stop()
	if err := makeUpstream(c.repo, dir, "up.git", selection{refs: []string{"refs/heads/main " + base}}); err != nil {
		return err
	}
	if err := m.makeTemplate(dir, base, mc.refs); err != nil {
		return err
	}
	line, err := gitOut(c.repo, "rev-list", "--first-parent", "--reverse", base+".."+end)
	if err != nil {
		return err
	}
	chain := strings.Fields(line)
	if len(chain) == 0 {
		return fmt.Errorf("-mirror %q: no commit after %s", spec, base)
	}
	fmt.Printf("\nmirror rows: %s over %s, %d refs besides main, %d rounds, medians (ours: durable:: with its defaults; git durable: core.fsync=committed, core.fsyncMethod=batch)\n", spec, m.url, mc.refs, c.rounds)
	if err := m.incremental(base, chain); err != nil {
		return err
	}
	if err := m.day(chain, mc.steps); err != nil {
		return err
	}
	for _, n := range mc.sweep {
		if err := m.sweep(dir, base, n); err != nil {
			return err
		}
	}
	return nil
}

// makeTemplate sets the upstream's main at base, with refs pull requests
// beside it (pullRefs), clones the template mirror of it into dir, with no
// housekeeping in any variant's mirror (a copy of it) — set in its config
// file, as a mirror's operator sets it, not through git -c, which the
// helper would have to ask git config to read — and primes it.
func (m *mirrorBench) makeTemplate(dir, base string, refs int) error {
	if err := m.setMain(base); err != nil {
		return err
	}
	if err := pullRefs(m.up, base, refs); err != nil {
		return err
	}
	m.template = filepath.Join(dir, "template.git")
	if err := run("", nil, "git", "clone", "-q", "--mirror", "file://"+m.up, m.template); err != nil {
		return err
	}
	for _, kv := range [][]string{{"gc.auto", "0"}, {"maintenance.auto", "false"}} {
		if err := run(m.template, nil, "git", "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return m.prime()
}

// prime runs one fetch with nothing new through the helper in the
// template, as a mirror's first fetch after a boot does: the sweep of the
// boot reads its loose objects and leaves its record (objects/info/durable),
// so that the rows measure a mirror's every other fetch of the day; the
// first one's cost has rows of its own (-sweep). The record means nothing
// to plain git, whose mirrors are copies of the same template.
func (m *mirrorBench) prime() error { return m.primeAt(m.template) }

// primeAt primes the template at dir, as prime does m.template.
func (m *mirrorBench) primeAt(dir string) error {
	v := mirrorVariant{name: "ours", durable: true}
	if err := run(dir, nil, "git", "remote", "set-url", "origin", "durable::file://"+m.up); err != nil {
		return err
	}
	if _, err := wall(m.git(v, dir, "fetch", "-q")); err != nil {
		return err
	}
	return run(dir, nil, "git", "remote", "set-url", "origin", "file://"+m.up)
}

// setMain moves the upstream's main to rev.
func (m *mirrorBench) setMain(rev string) error {
	return run(m.up, nil, "git", "update-ref", "refs/heads/main", rev)
}

// git returns git with args in dir, as variant v runs it.
func (m *mirrorBench) git(v mirrorVariant, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+m.helper+string(os.PathListSeparator)+os.Getenv("PATH"))
	if len(v.config) > 0 {
		cmd.Env = append(cmd.Env, "GIT_CONFIG_PARAMETERS="+configParams(v.config))
	}
	if m.r.force {
		cmd.Env = append(cmd.Env, "GIT_DURABLE_FORCE_BATCH=1")
	}
	return cmd
}

// fresh copies the template mirror to a new run directory and points its
// origin at the upstream as v fetches it.
func (m *mirrorBench) fresh(v mirrorVariant) (string, error) { return m.freshOf(m.template, v) }

// freshOf is fresh, of the template at tpl.
func (m *mirrorBench) freshOf(tpl string, v mirrorVariant) (string, error) {
	m.r.n++
	parent := m.r.work
	if m.r.runs != "" {
		parent = m.r.runs
	}
	dest := filepath.Join(parent, fmt.Sprintf("mirror%04d", m.r.n))
	if err := run("", nil, "cp", "-a", tpl, dest); err != nil {
		return "", err
	}
	url := m.url
	if v.durable {
		url = "durable::" + url
	}
	return dest, run(dest, nil, "git", "remote", "set-url", "origin", url)
}

// wall runs cmd and returns its wall time.
func wall(cmd *exec.Cmd) (time.Duration, error) {
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	if err != nil {
		return 0, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, errb.String())
	}
	return time.Since(start), nil
}

// each runs fn for every variant, m.rounds times, the order turning from
// round to round, and returns the medians by variant.
func (m *mirrorBench) each(fn func(v mirrorVariant) (float64, error)) (map[string]float64, error) {
	got := map[string][]float64{}
	for i := 0; i < m.rounds; i++ {
		for k := range mirrorVariants {
			v := mirrorVariants[(i+k)%len(mirrorVariants)]
			syncAll()
			x, err := fn(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", v.name, err)
			}
			got[v.name] = append(got[v.name], x)
		}
	}
	med := map[string]float64{}
	for k, xs := range got {
		med[k] = median(xs)
	}
	return med, nil
}

// count is how many objects a fetch of to into a mirror of from brings.
func (m *mirrorBench) count(from, to string) int {
	cmd := exec.Command("git", "rev-list", "--objects", "--count", to, "^"+from)
	cmd.Dir = m.src
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

// countFiles counts the files under dir.
func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// pullRefs gives the upstream up n refs refs/pull/<i>/head besides main,
// spread over the commits base reaches, packed: a forge's pull requests,
// which a mirror of it holds too.
func pullRefs(up, base string, n int) error {
	if n == 0 {
		return nil
	}
	out, err := gitOut(up, "rev-list", base)
	if err != nil {
		return err
	}
	commits := strings.Fields(out)
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "create refs/pull/%d/head %s\n", i, commits[(i*7)%len(commits)])
	}
	if err := run(up, strings.NewReader(b.String()), "git", "update-ref", "--stdin"); err != nil {
		return err
	}
	return run(up, nil, "git", "pack-refs", "--all")
}
