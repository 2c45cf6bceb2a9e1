package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// serverShape is one way a server may write the pack of the same history:
// which order the entries come in (and, after a repack, which deltas) is
// the server's choice, and what resolving them costs depends on it.
type serverShape struct {
	name   string
	recipe string // how the upstream is made, for the report
	// make builds the bare repository dir, holding sel's refs, from src.
	make func(src, dir, work string, sel selection) error
}

// serverShapes are the shapes -shapes chooses from, in order.
func serverShapes() []serverShape {
	return []serverShape{
		{"revs", "git daemon's pack-objects in an upstream that borrows the repository's objects (alternates), reusing its deltas: the bench's own pack",
			func(src, dir, _ string, sel selection) error {
				return makeUpstream(src, filepath.Dir(dir), filepath.Base(dir), sel)
			}},
		{"daemon", "git daemon's pack-objects in a bare repository made with `git rev-list --objects <rev> | git pack-objects --delta-base-offset` and `git index-pack`",
			func(src, dir, _ string, sel selection) error { return listedUpstream(src, dir, sel, false) }},
		{"aggressive", "the daemon upstream after `git gc --aggressive` (window 250, depth 50, a bitmap): git daemon sends its pack as it is on disk",
			func(src, dir, _ string, sel selection) error {
				if err := listedUpstream(src, dir, sel, false); err != nil {
					return err
				}
				return run(dir, nil, "git", "gc", "--aggressive", "-q")
			}},
		{"sorted", "`git rev-list --objects <rev> | sort | git pack-objects --delta-base-offset` (the same deltas, the entries in the order of their ids), `git index-pack`, `git multi-pack-index write --bitmap`: sent as written",
			func(src, dir, _ string, sel selection) error {
				if err := listedUpstream(src, dir, sel, true); err != nil {
					return err
				}
				return run(dir, nil, "git", "multi-pack-index", "write", "--bitmap")
			}},
		{"depth", "the revs pack rewritten with every full object first and each level of deltas after the level of its bases (the same entries, deltas and compressed data), `git index-pack`, `git multi-pack-index write --bitmap`: sent as written; the worst order for a cache of recent bases",
			depthUpstream},
	}
}

// shapeDir is where the upstream of shape s of sel is kept between runs
// of the bench: building one can take minutes (gc --aggressive).
func shapeDir(base, src string, s serverShape, sel selection) string {
	h := sha256.Sum256([]byte(src + "\n" + strings.Join(sel.revs, "\n")))
	return filepath.Join(base, s.name+"-"+hex.EncodeToString(h[:6])+".git")
}

// ensureUpstream builds the upstream of shape s once, and the pack git
// daemon sends for a clone of it (what git clone --mirror received), and
// returns both.
func ensureUpstream(d *daemon, src, work string, s serverShape, sel selection) (dir, packPath string, err error) {
	dir = shapeDir(d.base, src, s, sel)
	if _, err := os.Stat(filepath.Join(dir, "bench-done")); err != nil {
		os.RemoveAll(dir)
		fmt.Fprintf(os.Stderr, "making the %s upstream…\n", s.name)
		if err := s.make(src, dir, work, sel); err != nil {
			return "", "", fmt.Errorf("%s upstream: %v", s.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bench-done"), nil, 0o644); err != nil {
			return "", "", err
		}
	}
	packPath = strings.TrimSuffix(dir, ".git") + ".received.pack"
	if _, err := os.Stat(packPath); err == nil {
		return dir, packPath, nil
	}
	clone := filepath.Join(work, "received.git")
	os.RemoveAll(clone)
	defer os.RemoveAll(clone)
	if err := run("", nil, "git", "clone", "--mirror", "-q", d.url(filepath.Base(dir)), clone); err != nil {
		return "", "", err
	}
	packs, _ := filepath.Glob(filepath.Join(clone, "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		return "", "", fmt.Errorf("%s: the clone holds %d packs", s.name, len(packs))
	}
	return dir, packPath, os.Rename(packs[0], packPath)
}

// listedUpstream makes the bare repository dir from the objects of sel
// listed by rev-list (sorted by id, when sorted) and packed by
// pack-objects in src, which reuses src's deltas.
func listedUpstream(src, dir string, sel selection, sorted bool) error {
	if err := run("", nil, "git", "init", "-q", "--bare", "-b", "main", dir); err != nil {
		return err
	}
	script := `git rev-list --objects --stdin | ` + map[bool]string{true: "LC_ALL=C sort | "}[sorted] +
		`git pack-objects --stdout --delta-base-offset -q | git --git-dir="$1" index-pack --stdin`
	cmd := exec.Command("bash", "-c", "set -o pipefail; "+script, "bash", dir)
	cmd.Dir, cmd.Stdin = src, strings.NewReader(strings.Join(sel.revs, "\n")+"\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", script, err, out)
	}
	return setRefs(dir, sel)
}

// depthUpstream makes the bare repository dir from the revs pack of sel
// rewritten depth by depth.
func depthUpstream(src, dir, work string, sel selection) error {
	revs, err := packFor(src, work, sel)
	if err != nil {
		return err
	}
	p, err := os.ReadFile(revs)
	if err != nil {
		return err
	}
	byDepth, err := reorderByDepth(p)
	if err != nil {
		return err
	}
	if err := run("", nil, "git", "init", "-q", "--bare", "-b", "main", dir); err != nil {
		return err
	}
	if err := run(dir, strings.NewReader(string(byDepth)), "git", "index-pack", "--stdin"); err != nil {
		return err
	}
	if err := setRefs(dir, sel); err != nil {
		return err
	}
	return run(dir, nil, "git", "multi-pack-index", "write", "--bitmap")
}

// setRefs gives the repository dir the refs of sel.
func setRefs(dir string, sel selection) error {
	var in strings.Builder
	for _, ref := range sel.refs {
		fmt.Fprintf(&in, "create %s\n", ref)
	}
	return run(dir, strings.NewReader(in.String()), "git", "update-ref", "--stdin")
}

// shapeVariants are the rows measured on each shape's pack.
func shapeVariants() []variant {
	return []variant{
		{name: "ours none", argv: []string{"ours", "-q"}, config: cfgNone, base: "git none"},
		{name: "git none", git: true, argv: []string{"git", "unpack-objects", "-q"}, config: cfgNone},
		{name: "ours batch", argv: []string{"ours", "-q"}, config: cfgBatch, base: "ours none + sync -f"},
		{name: "ours none + sync -f", argv: []string{"ours", "-q"}, config: cfgNone, synced: true},
		{name: "git index-pack", git: true, argv: []string{"git", "index-pack", "--stdin"}, kept: true},
		{name: "ours keep", argv: []string{"ours", "-q", "--keep"}, base: "git index-pack", kept: true},
	}
}
