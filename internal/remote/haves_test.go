package remote

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// line makes a repository whose main is a line of n commits, a minute
// apart, and returns it and the commits, newest first.
func line(t *testing.T, n int) (*repo.Repo, []object.ID) {
	t.Helper()
	dir := gittest.Init(t, gittest.Env(t), true, "sha1")
	env := sealed(t, dir)
	tree := strings.TrimSpace(string(gittest.GitIn(t, env, dir, nil, "mktree")))
	var ids []object.ID
	parent := []string{}
	for i := 0; i < n; i++ {
		c := strings.TrimSpace(gittest.Git(t, gittest.Tick(env, i), dir, append([]string{"commit-tree", "-m", "c", tree}, parent...)...))
		id, err := object.ParseID(c)
		if err != nil {
			t.Fatal(err)
		}
		ids = append([]object.ID{id}, ids...)
		parent = []string{"-p", c}
	}
	gittest.Git(t, env, dir, "update-ref", "refs/heads/main", ids[0].String())
	return &repo.Repo{GitDir: dir, CommonDir: dir, ObjectDir: filepath.Join(dir, "objects")}, ids
}

// drain takes every have of n, rounds of 16.
func drain(n *negotiator) (haves []object.ID) {
	for next := n.Next(16); len(next) > 0; next = n.Next(16) {
		haves = append(haves, next...)
	}
	return haves
}

// TestNegotiatorConsecutive: the tips come first, in a round of their
// own, with no walk; then the commits below them, newest first; an
// acknowledged commit's ancestors are not sent, and the walk stops where
// nothing else is left instead of reading the history to its root; a tip
// the upstream advertised is sent without its ancestors, with no walk.
func TestNegotiatorConsecutive(t *testing.T) {
	r, ids := line(t, 100)
	n := newNegotiator(context.Background(), r, "consecutive", nil, nil, func(err error) { t.Error(err) }, always, nil)
	if tips := n.Next(16); len(tips) != 1 || tips[0] != ids[0] || n.walk != nil {
		t.Fatalf("first round %v (a walk: %v), want the tip alone, without a walk", tips, n.walk != nil)
	}
	if next := n.Next(15); len(next) != 15 || next[0] != ids[1] || next[14] != ids[15] {
		t.Fatalf("second round %v, want the 15 newest below the tip", next)
	}
	n.Ack(ids[20]) // not sent: nothing follows from it
	n.Ack(ids[15])
	if rest := drain(n); len(rest) != 0 {
		t.Errorf("after the ack of the 16th, %d more haves", len(rest))
	}
	n.Close()

	n = newNegotiator(context.Background(), r, "consecutive", map[object.ID]advertisedTip{ids[0]: {peeled: ids[0]}}, nil, nil, always, nil)
	defer n.Close()
	if got := drain(n); len(got) != 1 || got[0] != ids[0] || n.walk != nil {
		t.Errorf("haves %v (a walk: %v), want the advertised tip alone, without a walk", got, n.walk != nil)
	}
}

// TestNegotiatorSkipping: the skipping negotiator sends a line's newest
// commit, then skips 1, 2, 4, 7, 11… commits, and its root.
func TestNegotiatorSkipping(t *testing.T) {
	r, ids := line(t, 40)
	n := newNegotiator(context.Background(), r, "skipping", nil, nil, func(err error) { t.Error(err) }, always, nil)
	defer n.Close()
	var got []int
	for _, h := range drain(n) {
		for i, id := range ids {
			if id == h {
				got = append(got, i)
			}
		}
	}
	if want := []int{0, 2, 5, 10, 18, 30, 39}; !slices.Equal(got, want) {
		t.Errorf("sent the commits %v of the line, want %v", got, want)
	}
}

// TestNegotiationConfig: fetch.negotiationAlgorithm as git reads it.
func TestNegotiationConfig(t *testing.T) {
	for _, c := range []struct{ config, want, err string }{
		{"", "consecutive", ""},
		{"fetch.negotiationalgorithm=Skipping", "skipping", ""},
		{"fetch.negotiationalgorithm=noop", "noop", ""},
		{"feature.experimental=true", "skipping", ""},
		{"feature.experimental=true\nfetch.negotiationalgorithm=default", "skipping", ""},
		{"feature.experimental=true\nfetch.negotiationalgorithm=consecutive", "consecutive", ""},
		{"fetch.negotiationalgorithm=fast", "", "unknown fetch negotiation algorithm 'fast'"},
	} {
		var cfg repo.Config
		for _, kv := range strings.Split(c.config, "\n") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				cfg = append(cfg, repo.Entry{Key: k, Value: v, Scope: "command"})
			}
		}
		got, err := negotiation(cfg)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("%q: %q, %v; want %q, %q", c.config, got, err, c.want, c.err)
		}
	}
}

// always is a repository that reads every object.
func always(object.ID) bool { return true }

// TestNegotiatorLeavesOutUnreadable: a tip the repository cannot read
// (a crash lost its object) is never sent, whether the upstream advertised
// it or not; the other refs' tips are.
func TestNegotiatorLeavesOutUnreadable(t *testing.T) {
	r, ids := line(t, 3)
	dir := r.GitDir
	env := sealed(t, dir)
	gittest.Git(t, env, dir, "update-ref", "refs/heads/old", ids[2].String())
	lost := func(id object.ID) bool { return id != ids[0] }
	for _, advertised := range []map[object.ID]advertisedTip{nil, {ids[0]: {peeled: ids[0]}}} {
		n := newNegotiator(context.Background(), r, "consecutive", advertised, nil, func(err error) { t.Error(err) }, lost, nil)
		got := n.Next(16)
		n.Close()
		if slices.Contains(got, ids[0]) || !slices.Contains(got, ids[2]) {
			t.Errorf("advertised %v: first round %v, want %s and never %s", advertised != nil, got, ids[2], ids[0])
		}
	}
}

// TestNegotiatorTipsByDate: the tips go newest commit first, as git's
// negotiators take them, whatever their refs' names, own and advertised
// alike; an annotated tag counts as its commit.
func TestNegotiatorTipsByDate(t *testing.T) {
	r, ids := line(t, 8)
	dir := r.GitDir
	env := sealed(t, dir)
	gittest.Git(t, env, dir, "update-ref", "refs/heads/a-old", ids[6].String())
	gittest.Git(t, env, dir, "update-ref", "refs/heads/b-newer", ids[2].String())
	gittest.Git(t, env, dir, "tag", "-a", "-m", "t", "c-tag", ids[4].String())
	tag, _ := object.ParseID(strings.TrimSpace(gittest.Git(t, env, dir, "rev-parse", "c-tag")))
	s := loose.Open(batch.OS, r.ObjectDir, loose.Options{})
	defer s.Close()
	date := func(id object.ID) (int64, bool) { return tipDate(s, id) }
	advertised := map[object.ID]advertisedTip{ids[2]: {peeled: ids[2], order: 0}}
	n := newNegotiator(context.Background(), r, "consecutive", advertised, nil, func(err error) { t.Error(err) }, always, date)
	defer n.Close()
	got := n.Next(16)
	want := []object.ID{ids[0], ids[2], tag, ids[6]}
	if !slices.Equal(got, want) {
		t.Errorf("first round %v, want %v (main, b-newer, c-tag, a-old)", got, want)
	}
}
