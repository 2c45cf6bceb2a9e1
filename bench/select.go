package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// selection is a part of a repository's history: what a pack of it holds
// and what refs an upstream serving it has.
type selection struct {
	label   string   // "v2.0.0", "30000 objects"
	revs    []string // fed to pack-objects --revs
	refs    []string // "<refname> <object>" of an upstream serving it
	objects int      // counted along the history (0: known once packed)
}

// isCount tells a spec that is a number of objects from a revision.
func isCount(spec string) (int, bool) {
	n, err := strconv.Atoi(spec)
	return n, err == nil && n > 0
}

// selectRev is the history of one revision: a tag keeps its tag object
// and its ref.
func selectRev(repo, spec string) (selection, error) {
	commit, err := gitOut(repo, "rev-parse", "--verify", "-q", spec+"^{commit}")
	if err != nil {
		return selection{}, fmt.Errorf("%s is not a commit in %s", spec, repo)
	}
	s := selection{label: spec, revs: []string{spec}, refs: []string{"refs/heads/main " + commit}}
	// show-ref, not rev-parse: "v1.0.0~100" is a revision, not a tag.
	if out, err := gitOut(repo, "show-ref", "--verify", "refs/tags/"+spec); err == nil {
		tag, _, _ := strings.Cut(out, " ")
		s.refs = append(s.refs, "refs/tags/"+spec+" "+tag)
	}
	return s, nil
}

// selectCounts cuts the history of walk (`git rev-list --reverse
// --topo-order`, oldest first, every commit after its parents) at the first
// commit where the objects reachable from the commits so far reach each of
// counts. A count beyond the whole history is left out. The objects are
// counted from each commit's diff against its first parent (trees
// included), which names every object its tree has that its parent's has
// not; the parent is always in the prefix, so the count is exact.
func selectCounts(repo string, walk []string, counts []int) ([]selection, error) {
	sorted := append([]int(nil), counts...)
	sort.Ints(sorted)
	if len(sorted) == 0 {
		return nil, nil
	}
	args := append([]string{"log", "--reverse", "--topo-order", "--format=C %H %T %P", "--raw", "-t",
		"--no-abbrev", "--no-renames", "--diff-merges=first-parent", "--root"}, walk...)
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer cmd.Wait()
	defer cmd.Process.Kill() // once the largest count is reached
	seen := map[string]bool{}
	var commits []string
	parents := map[string][]string{}
	var found []selection
	cut := func() {
		for len(sorted) > 0 && len(seen) >= sorted[0] {
			found = append(found, prefix(commits, parents, sorted[0], len(seen)))
			sorted = sorted[1:]
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for len(sorted) > 0 && sc.Scan() {
		line := sc.Text()
		if c, ok := strings.CutPrefix(line, "C "); ok {
			cut() // the commit before is complete
			f := strings.Fields(c)
			if len(f) < 2 {
				return nil, fmt.Errorf("git log: %q", line)
			}
			commits = append(commits, f[0])
			parents[f[0]] = f[2:]
			seen[f[0]], seen[f[1]] = true, true
			continue
		}
		// :<old mode> <new mode> <old id> <new id> <status>\t<path>
		f := strings.Fields(line)
		if len(f) < 5 || !strings.HasPrefix(f[0], ":") || f[1] == "160000" || strings.Trim(f[3], "0") == "" {
			continue // a blank line, a deletion, a submodule's commit
		}
		seen[f[3]] = true
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	cut()
	return found, nil
}

// prefix is the selection of the commits so far: every one of them packed,
// and a ref for each that no other of them has as parent.
func prefix(commits []string, parents map[string][]string, want, objects int) selection {
	child := map[string]bool{}
	for _, c := range commits {
		for _, p := range parents[c] {
			child[p] = true
		}
	}
	s := selection{label: fmt.Sprintf("%d objects", want), revs: append([]string(nil), commits...), objects: objects}
	last := commits[len(commits)-1]
	s.refs = append(s.refs, "refs/heads/main "+last)
	for _, c := range commits {
		if !child[c] && c != last {
			s.refs = append(s.refs, "refs/heads/tip-"+c[:12]+" "+c)
		}
	}
	return s
}

// selectSpecs resolves specs that are revisions, numbers of objects
// (prefixes of walk's history) or "--all" (every ref), in the order given. A
// number beyond the whole history gives a selection without revs.
func selectSpecs(repo string, walk []string, specs []string) ([]selection, error) {
	var counts []int
	for _, s := range specs {
		if n, ok := isCount(s); ok {
			counts = append(counts, n)
		}
	}
	byCount, err := selectCounts(repo, walk, counts)
	if err != nil {
		return nil, err
	}
	var out []selection
	for _, spec := range specs {
		if n, ok := isCount(spec); ok {
			s := selection{label: fmt.Sprintf("%d objects", n)} // beyond the history: no revs
			for _, c := range byCount {
				if c.label == s.label {
					s = c
					break
				}
			}
			out = append(out, s)
			continue
		}
		if spec == "--all" {
			s, err := selectAll(repo)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			continue
		}
		s, err := selectRev(repo, spec)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// selectAll is every ref of repo.
func selectAll(repo string) (selection, error) {
	out, err := gitOut(repo, "for-each-ref", "--format=%(refname) %(objectname)")
	if err != nil {
		return selection{}, err
	}
	s := selection{label: "all refs"}
	for _, line := range strings.Split(out, "\n") {
		if _, id, ok := strings.Cut(line, " "); ok {
			s.refs = append(s.refs, line)
			s.revs = append(s.revs, id)
		}
	}
	return s, nil
}

// gitOut runs git in dir and returns its trimmed output.
func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
