package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// releaseSeries is how many release series have a branch in the
// upstream at the start: the newest ones of that date.
const releaseSeries = 8

// releaseRows measures the updates where the news is spread over release
// branches and tags, beside plain git (issue 51): the history of c.repo as
// of two dates (spec "<from>..<to>", see releasesAt), served over via; a
// mirror of the first updated to the second (git remote update --prune),
// and a single-branch clone of main's fetch --tags. Each row gives the
// objects the upstream packed for each variant, from the trace2 events of
// its pack-objects, and the medians of the fetches' times.
func releaseRows(r *runner, c realConfig, spec, via string) error {
	fromDate, toDate, ok := strings.Cut(spec, "..")
	if !ok {
		return fmt.Errorf("-releases %q: want <date>..<date>", spec)
	}
	before, oldest, err := releasesAt(c.repo, fromDate, releaseSeries, "")
	if err != nil {
		return err
	}
	after, _, err := releasesAt(c.repo, toDate, releaseSeries, oldest)
	if err != nil {
		return err
	}
	dir, err := releaseDir(r)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	m := &mirrorBench{r: r, src: c.repo, rounds: c.rounds}
	if m.helper, err = filepath.Abs(filepath.Dir(c.helper)); err != nil {
		return err
	}
	m.up = filepath.Join(dir, "up.git")
	trace := filepath.Join(dir, "pack-objects.trace2")
	var serverEnv []string
	if via != "file" {
		serverEnv = []string{"GIT_TRACE2_EVENT=" + trace}
	}
	var stop func()
	if m.url, stop, err = upstreamURL(dir, via, serverEnv...); err != nil {
		return err
	}
	defer stop()
	var refs []string
	for name, id := range before.refs {
		refs = append(refs, name+" "+id)
	}
	if err := makeUpstream(c.repo, dir, "up.git", selection{refs: refs}); err != nil {
		return err
	}
	m.template = filepath.Join(dir, "mirror.git")
	single := filepath.Join(dir, "single")
	for _, clone := range [][]string{
		{"clone", "-q", "--mirror", "file://" + m.up, m.template},
		{"clone", "-q", "--no-checkout", "--single-branch", "-b", "main", "file://" + m.up, single},
	} {
		dest := clone[len(clone)-1]
		if err := run("", nil, "git", clone...); err != nil {
			return err
		}
		for _, kv := range [][]string{{"gc.auto", "0"}, {"maintenance.auto", "false"}} {
			if err := run(dest, nil, "git", "config", kv[0], kv[1]); err != nil {
				return err
			}
		}
		if err := m.primeAt(dest); err != nil {
			return err
		}
	}
	moved, created, err := moveTo(m.up, before, after)
	if err != nil {
		return err
	}
	fmt.Printf("\nrelease rows: %s of %s over %s: main, %d release branches, %d tags; then %d refs moved, %d created; %d rounds, medians\n",
		spec, filepath.Base(c.repo), m.url, before.branches, before.tags, moved, created, c.rounds)
	fmt.Println("  update                           objects: ours     git  ours/git   ours s   git s  git durable s  ours/git  ours/git durable")
	for _, row := range []struct {
		name, tpl string
		args      []string
	}{
		{"mirror, remote update --prune", m.template, []string{"remote", "update", "--prune"}},
		{"single branch, fetch --tags", single, []string{"fetch", "-q", "--tags"}},
	} {
		med, err := m.each(func(v mirrorVariant) (float64, error) {
			dest, err := m.freshOf(row.tpl, v)
			if err != nil {
				return 0, err
			}
			defer os.RemoveAll(dest)
			d, err := wall(m.git(v, dest, row.args...))
			return d.Seconds(), err
		})
		if err != nil {
			return err
		}
		objects := map[string]int{}
		for _, v := range mirrorVariants[:2] {
			if objects[v.name], err = m.packed(row.tpl, v, trace, via, row.args); err != nil {
				return err
			}
		}
		ratio := float64(objects["ours"]) / float64(max(objects["git"], 1))
		fmt.Printf("  %-31s %15d %7d %8.2f×  %7.3f %7.3f %14.3f %8.2f× %16.2f×\n", row.name, objects["ours"], objects["git"], ratio,
			med["ours"], med["git"], med["git durable"], med["ours"]/med["git"], med["ours"]/med["git durable"])
		fmt.Printf("    targets: objects ≤ 1.10× git's: %s; time ≤ 1.00× git's: %s\n", met(ratio <= 1.10), met(med["ours"] <= med["git"]))
	}
	return nil
}

// packed runs the update once more for v, its upstream's pack-objects
// tracing (over file://, through the fetch's environment), and returns
// how many objects the upstream packed for it.
func (m *mirrorBench) packed(tpl string, v mirrorVariant, trace, via string, args []string) (int, error) {
	dest, err := m.freshOf(tpl, v)
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dest)
	_, offset := packedObjects(trace, 0)
	cmd := m.git(v, dest, args...)
	if via == "file" {
		cmd.Env = append(cmd.Env, "GIT_TRACE2_EVENT="+trace)
	}
	if _, err := wall(cmd); err != nil {
		return 0, err
	}
	n, _ := packedObjects(trace, offset)
	return n, nil
}

// met says whether a target was met.
func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
