package remote

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestFilterOptions: git's "option filter" and "option from-promisor" (the
// latter as git sends it, "1") are taken; a spec that would end the
// request's pkt-line, or a value that is no boolean, is refused.
func TestFilterOptions(t *testing.T) {
	for _, tc := range []struct{ line, reply, filter string }{
		{"filter blob:none", "ok", "blob:none"},
		{`filter "combine:blob:none+tree:2"`, "ok", "combine:blob:none+tree:2"},
		{`filter "blob:none\nwant x"`, `error invalid filter-spec 'blob:none` + "\n" + `want x'`, ""},
		{"from-promisor 1", "ok", ""},
		{"from-promisor maybe", "error invalid value 'maybe' for from-promisor", ""},
	} {
		h := &helper{set: defaultSettings()}
		if got := h.option(tc.line); got != tc.reply || h.set.filter != tc.filter {
			t.Errorf("%q: %q, filter %q", tc.line, got, h.set.filter)
		}
		if strings.HasPrefix(tc.line, "from-promisor") && h.set.fromPromisor != (tc.reply == "ok") {
			t.Errorf("%q: from-promisor %v", tc.line, h.set.fromPromisor)
		}
	}
}

// promisorFixture is the fixture with an upstream that serves filters and
// any object as a want, as git's own partial clone tests set it up.
func promisorFixture(t *testing.T) *fixture {
	f := newFixture(t)
	gittest.Git(t, f.env, f.up, "config", "uploadpack.allowFilter", "true")
	gittest.Git(t, f.env, f.up, "config", "uploadpack.allowAnySHA1InWant", "true")
	return f
}

// promisorPacks returns the .promisor files of the local repository, by
// pack, with their contents.
func (f *fixture) promisorPacks(t *testing.T) (packs []string, texts map[string]string) {
	t.Helper()
	texts = map[string]string{}
	packs, _ = filepath.Glob(filepath.Join(f.local, "objects/pack/*.pack"))
	for _, p := range packs {
		b, err := os.ReadFile(strings.TrimSuffix(p, ".pack") + ".promisor")
		if err != nil {
			t.Errorf("%s has no .promisor: %v", filepath.Base(p), err)
		}
		texts[p] = string(b)
	}
	return packs, texts
}

// TestPromisorFetch plays a partial clone's dialogue: the filtered pack is
// kept, whatever its size, as a promisor pack whose .promisor holds the
// refs asked for (git's fetch-pack on a clone); no object is loose, no blob
// came. The lazy fetch of a blob that follows (no cloning, the noop
// negotiator) is a promisor pack too, with index-pack's empty .promisor.
func TestPromisorFetch(t *testing.T) {
	f := promisorFixture(t)
	in := "option filter blob:none\noption from-promisor 1\nlist\noption cloning true\noption filter blob:none\n" +
		fmt.Sprintf("fetch %s refs/heads/main\nfetch %s refs/tags/v10\n\n", f.main, f.v10)
	if s := dialogue(t, f.up, in, nil); s.code != 0 {
		t.Fatalf("exit %d: %s", s.code, s.err)
	}
	packs, texts := f.promisorPacks(t)
	want := fmt.Sprintf("%s refs/heads/main\n%s refs/tags/v10\n", f.main, f.v10)
	if len(packs) != 1 || texts[packs[0]] != want || f.loose(t) != 0 {
		t.Fatalf("packs %v, .promisor %q, %d loose objects", packs, texts, f.loose(t))
	}
	kinds := gittest.Git(t, f.env, f.local, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)")
	if strings.Contains(kinds, "blob") || !strings.Contains(kinds, "tree") {
		t.Fatalf("objects received:\n%s", kinds)
	}

	blob := strings.TrimSpace(gittest.Git(t, f.env, f.up, "rev-parse", "main:dir0/sub0/file0.txt"))
	t.Setenv("GIT_CONFIG_PARAMETERS", "'fetch.negotiationAlgorithm'='noop'")
	in = fmt.Sprintf("option filter blob:none\noption from-promisor 1\nlist\noption filter blob:none\nfetch %s %s\n\n", blob, blob)
	if s := dialogue(t, f.up, in, nil); s.code != 0 {
		t.Fatalf("lazy fetch: exit %d: %s", s.code, s.err)
	}
	packs, texts = f.promisorPacks(t)
	if len(packs) != 2 || f.loose(t) != 0 {
		t.Fatalf("packs %v, %d loose objects", packs, f.loose(t))
	}
	for p, text := range texts {
		if text != want && text != "" {
			t.Errorf("%s: .promisor %q", filepath.Base(p), text)
		}
	}
	if typ := gittest.Git(t, f.env, f.local, "cat-file", "-t", blob); typ != "blob\n" {
		t.Errorf("the blob is %q", typ)
	}
	if b, _ := os.ReadFile(f.stats); strings.Count(string(b), `"promisor":true`) != 2 || strings.Count(string(b), `"hardware-flush":1,`) != 2 {
		t.Errorf("stats:\n%s", b)
	}
}

// TestNoopNegotiation: with git's noop negotiator (git -c
// fetch.negotiationAlgorithm=noop, how git runs a lazy fetch) the helper
// sends no haves; without it, it does.
func TestNoopNegotiation(t *testing.T) {
	f := promisorFixture(t)
	old := strings.TrimSpace(gittest.Git(t, f.env, f.up, "rev-parse", "main~5"))
	if s := dialogue(t, f.up, fmt.Sprintf("list\nfetch %s refs/heads/old\n\n", old), nil); s.code != 0 {
		t.Fatal(s.err)
	}
	gittest.Git(t, f.env, f.local, "update-ref", "refs/heads/old", old)
	for _, noop := range []bool{false, true} {
		trace := filepath.Join(t.TempDir(), "packets")
		t.Setenv("GIT_TRACE_PACKET", trace)
		t.Setenv("GIT_CONFIG_PARAMETERS", "")
		if noop {
			t.Setenv("GIT_CONFIG_PARAMETERS", "'fetch.negotiationalgorithm'='NoOp'")
		}
		if s := dialogue(t, f.up, fmt.Sprintf("list\nfetch %s refs/heads/main\n\n", f.main), nil); s.code != 0 {
			t.Fatal(s.err)
		}
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		if haves := strings.Contains(string(b), "< have "); haves == noop {
			t.Errorf("noop %v: haves sent %v:\n%.3000s", noop, haves, b)
		}
	}
}
