package main

import (
	"fmt"
	"os"
	"strings"
)

// realPacks is what the real-history rows measure: the history, the
// selection of -rev and its pack, the ends of the fetch, and the points
// of the scaling curve.
type realPacks struct {
	src      string // the repository that holds the history
	main     selection
	pack     string // main's pack: -pack, or written from the history
	info     shape  // the pack, described
	from, to selection
	// fromSpec and toSpec are the fetch's ends as -fetch gives them, or
	// as they are chosen without it.
	fromSpec, toSpec string
	points           []selection
}

// selectHistory selects, in the history of c.repo or of the pack c.pack,
// what the real-history rows measure, and writes the pack of -rev.
func selectHistory(r *runner, c realConfig) (*realPacks, error) {
	h := &realPacks{src: c.repo, pack: c.pack}
	walk, mainSpec := []string{"HEAD"}, c.rev
	var err error
	if c.pack != "" {
		if h.src, err = packRepo(r.work, c.pack); err != nil {
			return nil, err
		}
		if h.info, err = describePack(c.pack); err != nil {
			return nil, err
		}
		walk, mainSpec = []string{"--all"}, "--all"
	} else if h.src, err = gitOut(c.repo, "rev-parse", "--absolute-git-dir"); err != nil {
		return nil, err
	}
	if mainSpec == "" {
		mainSpec = "160000"
	}
	h.fromSpec, h.toSpec = fetchRange(c.fetch, mainSpec, h.info.entries)
	var points []string
	for _, p := range strings.Split(c.scale, ",") {
		if p = strings.TrimSpace(p); p != "" {
			points = append(points, p)
		}
	}
	fmt.Fprintf(os.Stderr, "selecting the history (%s, %s..%s, %s) in %s…\n", mainSpec, h.fromSpec, h.toSpec, c.scale, h.src)
	sels, err := selectSpecs(h.src, walk, append([]string{mainSpec, h.fromSpec, h.toSpec}, points...))
	if err != nil {
		return nil, err
	}
	h.main, h.from, h.to, h.points = sels[0], sels[1], sels[2], sels[3:]
	if h.pack != "" {
		return h, nil
	}
	if len(h.main.revs) == 0 {
		return nil, fmt.Errorf("the history of %s has fewer than %s", h.src, h.main.label)
	}
	if h.pack, err = packFor(h.src, r.work, h.main); err != nil {
		return nil, err
	}
	h.info, err = describePack(h.pack)
	return h, err
}

// fetchRange returns the ends of the incremental fetch: those of spec
// ("from..to"), else from about 3,000 objects before main (a count of
// objects, or "--all" for a pack of objects entries), or 100 commits
// before it (a revision), to main.
func fetchRange(spec, main string, objects int) (string, string) {
	if from, to, ok := strings.Cut(spec, ".."); ok {
		return from, to
	}
	if n, isN := isCount(main); isN {
		return fmt.Sprint(max(n-3000, 1)), main
	} else if main == "--all" {
		return fmt.Sprint(max(objects-3000, 1)), main
	}
	return main + "~100", main
}
