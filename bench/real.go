package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// realConfig holds the flags of the real-history mode.
type realConfig struct {
	repo, pack string // the history: a repository, or a pack
	rev        string // what the explode rows and the clone unpack
	fetch      string // "<from>..<to>" of the incremental fetch
	scale      string // the points of the scaling curve
	tiny       int    // invocations on the 3-object pack
	shapes     string // the server shapes measured (serverShapes)
	rounds     int
	helper     string          // git-remote-durable
	rows       map[string]bool // the groups of rows measured (rowGroups)
	main       bool            // measure the -rev pack's own table, clone and fetch
	full       string          // the tag of the full-history clone ("" skips it)
}

// realVariants are the rows measured on the real pack.
func realVariants() []variant {
	return []variant{
		{name: "ours none", argv: []string{"ours", "-q"}, config: cfgNone, base: "git none"},
		{name: "git none", git: true, argv: []string{"git", "unpack-objects", "-q"}, config: cfgNone},
		{name: "ours batch", argv: []string{"ours", "-q"}, config: cfgBatch, base: "git batch"},
		{name: "git batch", git: true, argv: []string{"git", "unpack-objects", "-q"}, config: cfgBatch},
		{name: "ours none + sync -f", argv: []string{"ours", "-q"}, config: cfgNone, synced: true},
		{name: "git index-pack", git: true, argv: []string{"git", "index-pack", "--stdin"}, kept: true},
		{name: "ours keep", argv: []string{"ours", "-q", "--keep"}, base: "git index-pack", kept: true},
	}
}

// realHistory measures the rows of the real-history mode and prints them.
// Every run's repository is removed after it (a history of 160,000 loose
// objects, kept for every run, would not fit the scratch filesystem).
func realHistory(r *runner, c realConfig) error {
	h, err := selectHistory(r, c)
	if err != nil {
		return err
	}
	fmt.Printf("\n## real history: %s (%s)\n\npack: %s\n", h.src, h.main.label, h.info)
	t := &targets{}
	var st map[string]stats // the main rows, the revs shape's
	r.packPath = h.pack
	if c.main {
		if st, err = mainRows(r, c, h.info.entries, t); err != nil {
			return err
		}
	}
	clone, err := cloneRows(r, c, h, t)
	if err != nil {
		return err
	}
	if c.shapes != "" {
		if err := measureShapes(r, c, h.src, h.main, st, clone, t); err != nil {
			return err
		}
	}
	if c.full != "" {
		if err := fullClone(r, c, h.src, t); err != nil {
			return err
		}
	}
	if c.tiny > 0 {
		ours, git, traced, err := tinyRuns(r, c.tiny)
		if err != nil {
			return err
		}
		t.tiny(ours, git, traced)
	}
	if len(h.points) > 0 {
		pts, err := scaling(r, h.src, h.points, c.rounds)
		if err != nil {
			return err
		}
		if len(pts) > 0 {
			t.scaling(scalingTable(os.Stdout, pts))
		}
	}
	t.print(os.Stdout)
	return nil
}

// mainRows measures the rows of realVariants that c.rows chooses on the
// pack of r, which holds objects, prints their table and checks their
// targets.
func mainRows(r *runner, c realConfig, objects int, t *targets) (map[string]stats, error) {
	vs := pick(realVariants(), c.rows)
	st, err := measureRows(r, vs, c.rounds, objects)
	if err != nil {
		return nil, err
	}
	fmt.Printf("\n%d objects; %d rounds, order rotated every round; runs removed after each\n\n", objects, c.rounds)
	table(os.Stdout, vs, st)
	t.explode(st)
	return st, nil
}

// cloneRows measures the clone, the fetch and the partial clone that
// c.rows chooses, unless the fetch's ends lie beyond the history, and
// returns the clone's samples where it is of the main selection (the revs
// shape's clone), else nil.
func cloneRows(r *runner, c realConfig, h *realPacks, t *targets) (*transfers, error) {
	switch {
	case !c.main || !c.rows["clone"] && !c.rows["fetch"] && !c.rows["partial"]:
		return nil, nil
	case len(h.from.revs) == 0 || len(h.to.revs) == 0:
		fmt.Fprintf(os.Stderr, "no clone and fetch: %s..%s is beyond the history\n", h.fromSpec, h.toSpec)
		return nil, nil
	}
	tr, err := cloneFetch(r, c, h.src, h.from, h.to, t)
	if err != nil {
		return nil, err
	}
	if c.rows["clone"] && h.to.label == h.main.label {
		return &tr, nil
	}
	return nil, nil
}

// cloneFetch measures the mirror clone of to, the fetch from a mirror of
// from to to, and the partial mirror clone of to, through git daemon on
// loopback on protocol v2, ours and git alternating, and returns the
// clone's samples.
func cloneFetch(r *runner, c realConfig, src string, fromSel, toSel selection, t *targets) (transfers, error) {
	base := filepath.Join(r.work, "upstreams")
	os.RemoveAll(base)
	defer os.RemoveAll(base)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return transfers{}, err
	}
	if err := makeUpstream(src, base, "from.git", fromSel); err != nil {
		return transfers{}, err
	}
	if err := makeUpstream(src, base, "to.git", toSel); err != nil {
		return transfers{}, err
	}
	want, err := gitOut(filepath.Join(base, "to.git"), "rev-parse", "refs/heads/main")
	if err != nil {
		return transfers{}, err
	}
	fetched, err := countObjects(src, toSel, fromSel)
	if err != nil {
		return transfers{}, err
	}
	all, err := countObjects(src, toSel, selection{})
	if err != nil {
		return transfers{}, err
	}
	d, shim, err := serve(base, filepath.Join(r.work, "daemon.log"), c.helper)
	if err != nil {
		return transfers{}, err
	}
	defer d.stop()
	tr := &transfer{r: r, shim: shim, wantMain: want, config: v2Config, v2: d, objects: all}
	var clone, fetch, partial transfers
	if c.rows["clone"] {
		if clone, err = tr.rounds(d.url("to.git"), c.rounds, "clone"); err != nil {
			return transfers{}, err
		}
	}
	if c.rows["fetch"] {
		tr.base, tr.objects = filepath.Join(base, "mirror-from.git"), 0
		if err := run("", nil, "git", "clone", "--mirror", "-q", d.url("from.git"), tr.base); err != nil {
			return transfers{}, err
		}
		if fetch, err = tr.rounds(d.url("to.git"), c.rounds, "fetch"); err != nil {
			return transfers{}, err
		}
	}
	if c.rows["partial"] {
		if partial, err = partialClone(r, c, src, base, d, toSel, shim, want); err != nil {
			return transfers{}, err
		}
	}
	fmt.Printf("\nmirror clone of %s (%d objects), fetch %s → %s (%d objects) and mirror clone --filter=%s of %s from git daemon on 127.0.0.1; protocol v2 (-c protocol.version=2 for git and the helper; %d upload-pack requests, each asking for version=2 in git daemon's log); %d rounds\n\n",
		toSel.label, all, fromSel.label, toSel.label, fetched, partialFilter, toSel.label, d.log.requests, c.rounds)
	t.transfers(os.Stdout, clone, fetch, partial)
	return clone, nil
}
