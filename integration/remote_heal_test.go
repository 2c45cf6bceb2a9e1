package integration

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// fetchCounter passes requests on to h and counts the fetch commands of
// protocol v2 (and v0's POSTs of wants) among them.
type fetchCounter struct {
	h       http.Handler
	mu      sync.Mutex
	fetches int
}

func (c *fetchCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack") {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte("command=fetch")) || bytes.Contains(body, []byte("want ")) {
			c.mu.Lock()
			c.fetches++
			c.mu.Unlock()
		}
	}
	c.h.ServeHTTP(w, r)
}

func (c *fetchCounter) take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.fetches
	c.fetches = 0
	return n
}

// newHealUpstream makes the upstream of one heal case, served over kind
// ("file", or "http" through git http-backend) with git asking for
// protocol version; filter lets its upload-pack filter. fetches counts the
// fetch requests the upstream answered since it was last called: the
// HTTP server's POSTs, or the packet trace upload-pack writes to trace
// where a fetch's environment has GIT_TRACE_PACKET=trace.
func newHealUpstream(t *testing.T, kind, version string, filter bool) ([]string, string, string, string, string, func() int) {
	t.Helper()
	e := append(env(t), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0="+version)
	base := t.TempDir()
	dir := newUpstream(t, e, base, "up.git")
	url, trace := "file://"+dir, filepath.Join(base, "trace")
	if filter {
		gittest.Git(t, e, dir, "config", "uploadpack.allowFilter", "true")
	}
	var counter *fetchCounter
	if kind == "http" {
		counter = &fetchCounter{h: httpBackend(t, e, base)}
		url = startHTTP(t, counter) + "/up.git"
	}
	return e, base, dir, url, trace, func() int {
		if counter != nil {
			return counter.take()
		}
		b, _ := os.ReadFile(trace)
		os.Remove(trace)
		if version == "0" {
			return strings.Count(string(b), "upload-pack< done")
		}
		return strings.Count(string(b), "upload-pack< command=fetch")
	}
}

// TestRemoteHeal: a clone one of whose loose objects a crash left empty —
// the base of the next fetch's thin pack, a blob git trusts because its
// file exists — fails every later fetch of plain git. Through the helper,
// where the upstream speaks protocol v2, the fetch asks the upstream for
// that object by its id and repairs it: the fetch succeeds, git fsck is
// clean, the object is counted repaired, and the upstream saw exactly one
// fetch request more than for the same fetch into a sound copy. Over v0,
// whose upload-pack serves no object by id, the fetch fails as git's.
func TestRemoteHeal(t *testing.T) {
	t.Parallel() // see "Parallel tests" in harness_test.go
	for _, tc := range []struct{ kind, version string }{{"file", "2"}, {"http", "2"}, {"file", "0"}} {
		t.Run(tc.kind+"-v"+tc.version, func(t *testing.T) {
			env, base, dir, url, trace, fetches := newHealUpstream(t, tc.kind, tc.version, false)
			sound := filepath.Join(base, "sound")
			c, _ := durable(t, env, base, "-c", "fetch.unpackLimit=100000", "clone", "-q", "durable::"+url, sound)
			mustRun(t, c, "clone")
			old := strings.TrimSpace(gittest.Git(t, env, sound, "rev-parse", "origin/main"))
			advance(t, env, dir, 1, "")
			var blob string
			for _, id := range thinBases(t, env, dir, filepath.Join(sound, ".git/objects"), old) {
				if strings.TrimSpace(gittest.Git(t, env, sound, "cat-file", "-t", id)) == "blob" {
					blob = id
				}
			}
			if blob == "" {
				t.Fatal("the thin pack has no blob for a base")
			}
			copyOf := func(name string) string {
				dst := filepath.Join(base, name)
				gittest.Exec(t, env, "", nil, "cp", "-a", sound, dst)
				return dst
			}
			ours, theirs := copyOf("ours"), copyOf("theirs")
			for _, repo := range []string{ours, theirs} {
				p := filepath.Join(repo, ".git/objects", blob[:2], blob[2:])
				if err := os.Truncate(p, 0); err != nil {
					t.Fatal(err)
				}
			}
			gittest.Git(t, env, theirs, "config", "remote.origin.url", url)
			if c := gittest.Exec(t, env, theirs, nil, "git", "fetch", "-q"); c.Code == 0 {
				t.Fatal("plain git's fetch into the poisoned clone succeeded")
			}

			env = append(env, "GIT_TRACE_PACKET="+trace)
			fetches() // from now on
			c, _ = durable(t, env, sound, "fetch")
			mustRun(t, c, "fetch into the sound clone")
			want := fetches()
			c, stats := durable(t, env, ours, "fetch")
			got := fetches()
			t.Logf("fetch requests: %d into the sound clone, %d into the poisoned one", want, got)
			if tc.version == "0" {
				if c.Code != 128 || !strings.Contains(string(c.Stderr), "failed to read delta-pack base object "+blob) {
					t.Fatalf("v0: exit %d\n%s", c.Code, c.Stderr)
				}
				if got != want {
					t.Errorf("v0: %d fetch requests, the sound clone's fetch %d", got, want)
				}
				return
			}
			mustRun(t, c, "fetch into the poisoned clone")
			if got != want+1 || want == 0 {
				t.Errorf("%d fetch requests, the sound clone's fetch %d: want one more", got, want)
			}
			if !strings.Contains(string(c.Stderr), "warning: object "+blob+" of the repository was broken") {
				t.Errorf("no warning of the repair:\n%s", c.Stderr)
			}
			checkBatches(t, stats)
			var repaired int64
			for _, s := range stats {
				repaired += s.Repaired
			}
			if repaired != 1 {
				t.Errorf("%d objects repaired, want 1: %+v", repaired, stats)
			}
			gittest.Fsck(t, env, ours)
			if a, b := refs(t, env, sound), refs(t, env, ours); a != b {
				t.Errorf("refs: sound clone\n%s\nhealed\n%s", a, b)
			}
			if a, b := gittest.Objects(t, env, sound), gittest.Objects(t, env, ours); a != b {
				t.Errorf("objects differ: %s", firstDiff(a, b))
			}
		})
	}
}

// TestRemoteHealAnswerBounded: asked again for one broken blob, a hostile
// upstream (protocol v2 over git://) answers with that blob and 3,000
// others. Only the blob asked for is written: the fetch heals it and
// succeeds, says that the others were dropped, and leaves as many loose
// objects as the same fetch into a sound clone — none of the 3,000, and no
// scratch directory under objects/.
func TestRemoteHealAnswerBounded(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	var mu sync.Mutex
	var heal []byte // the answer to a fetch with no haves of the broken blob
	var broken string
	d := startHostile(t, env, up, lie{v2: true, packFor: func(req []string) []byte {
		mu.Lock()
		defer mu.Unlock()
		text := strings.Join(req, "")
		if broken == "" || strings.Contains(text, "have ") || !strings.Contains(text, "want "+broken) {
			return nil
		}
		return heal
	}})
	sound := filepath.Join(base, "sound")
	c, _ := durable(t, env, base, "-c", "fetch.unpackLimit=100000", "clone", "-q", "durable::"+d.url, sound)
	mustRun(t, c, "clone")
	old := strings.TrimSpace(gittest.Git(t, env, sound, "rev-parse", "origin/main"))
	advance(t, env, up, 1, "")
	for _, id := range thinBases(t, env, up, filepath.Join(sound, ".git/objects"), old) {
		if strings.TrimSpace(gittest.Git(t, env, sound, "cat-file", "-t", id)) == "blob" {
			broken = id
		}
	}
	if broken == "" {
		t.Fatal("the thin pack has no blob for a base")
	}
	// The answer: the blob and 3,000 blobs nobody asked for.
	scratch := gittest.Init(t, env, true, "")
	padding := filepath.Join(base, "padding")
	var paths strings.Builder
	for i := range 3000 {
		p := filepath.Join(padding, strconv.Itoa(i))
		gittest.WriteFile(t, padding, strconv.Itoa(i), "padding "+strconv.Itoa(i)+"\n")
		paths.WriteString(p + "\n")
	}
	extra := strings.Fields(string(gittest.GitIn(t, env, scratch, []byte(paths.String()), "hash-object", "-w", "--stdin-paths")))
	content := gittest.GitIn(t, env, up, nil, "cat-file", "blob", broken)
	gittest.GitIn(t, env, scratch, content, "hash-object", "-w", "--stdin")
	mu.Lock()
	heal = gittest.GitIn(t, env, scratch, []byte(broken+"\n"+strings.Join(extra, "\n")+"\n"), "pack-objects", "--stdout")
	mu.Unlock()

	ours := filepath.Join(base, "ours")
	gittest.Exec(t, env, "", nil, "cp", "-a", sound, ours)
	if err := os.Truncate(filepath.Join(ours, ".git/objects", broken[:2], broken[2:]), 0); err != nil {
		t.Fatal(err)
	}
	c, _ = durable(t, env, sound, "fetch", "-q")
	mustRun(t, c, "fetch into the sound clone")
	c, _ = durable(t, env, ours, "fetch", "-q")
	mustRun(t, c, "fetch into the poisoned clone")
	for _, want := range []string{"warning: object " + broken + " of the repository was broken",
		"sent 3000 objects not asked for with the broken ones; they were dropped"} {
		if !strings.Contains(string(c.Stderr), want) {
			t.Errorf("no %q:\n%s", want, c.Stderr)
		}
	}
	gittest.Fsck(t, env, ours)
	check := gittest.GitIn(t, env, ours, []byte(strings.Join(extra, "\n")+"\n"), "cat-file", "--batch-check")
	if n := strings.Count(string(check), " missing"); n != len(extra) {
		t.Errorf("%d of the %d objects not asked for were written", len(extra)-n, len(extra))
	}
	loose := func(dir string) string {
		return lineWith(gittest.Git(t, env, dir, "count-objects", "-v"), "count: ")
	}
	if a, b := loose(sound), loose(ours); a != b {
		t.Errorf("loose objects: %s after the sound fetch, %s after the healed one", a, b)
	}
	if left, _ := filepath.Glob(filepath.Join(ours, ".git/objects/tmp_*")); len(left) != 0 {
		t.Errorf("left under objects/: %v", left)
	}
}
