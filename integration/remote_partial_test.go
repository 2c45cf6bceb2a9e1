package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/remote"
)

// servePartial lets the upstream serve partial clones as git's own tests
// set one up: filters, and any object as a want (the lazy fetches ask for
// blobs by id; over v0 upload-pack refuses them otherwise).
func servePartial(t *testing.T, env []string, dir string) {
	t.Helper()
	gittest.Git(t, env, dir, "config", "uploadpack.allowFilter", "true")
	gittest.Git(t, env, dir, "config", "uploadpack.allowAnySHA1InWant", "true")
}

// partialState is what a partial clone holds and knows it lacks: every
// object present (cat-file --batch-all-objects), and the objects the refs
// reach, the missing ones marked "?" (rev-list --missing=print), or how
// that walk fails (object:type=blob leaves the commits out).
func partialState(t *testing.T, env []string, dir string) string {
	t.Helper()
	c := gittest.Exec(t, env, dir, nil, "git", "rev-list", "--objects", "--missing=print", "--all")
	return fmt.Sprintf("%s--\n%s\n%sexit %d\n", gittest.Objects(t, env, dir), sortedLines(string(c.Stdout)), c.Stderr, c.Code)
}

// samePartial fails unless ours holds what plain git's partial clone
// theirs holds, fsck says the same of both, and ours keeps everything in
// promisor packs, nothing loose.
func samePartial(t *testing.T, env []string, ours, theirs, what string) {
	t.Helper()
	if want, got := partialState(t, env, theirs), partialState(t, env, ours); want != got {
		t.Fatalf("%s: objects differ from git's; %s", what, firstDiff(want, got))
	}
	fsck := func(dir string) string {
		c := gittest.Exec(t, env, dir, nil, "git", "fsck", "--no-progress")
		return fmt.Sprintf("%s%sexit %d", c.Stdout, c.Stderr, c.Code)
	}
	if want, got := fsck(theirs), fsck(ours); want != got {
		t.Errorf("%s: git fsck says\n%s\nof ours, and of git's clone\n%s", what, got, want)
	}
	packs := packsOf(t, ours)
	for _, p := range packs {
		if _, err := os.Stat(strings.TrimSuffix(p, ".pack") + ".promisor"); err != nil {
			t.Errorf("%s: %s is no promisor pack", what, filepath.Base(p))
		}
	}
	if loose, _ := filepath.Glob(filepath.Join(ours, ".git/objects/??/*")); len(loose) != 0 || len(packs) == 0 {
		t.Errorf("%s: %d loose objects, %d packs", what, len(loose), len(packs))
	}
}

// checkPromisorBatches fails unless every fetch batch kept a promisor pack
// durably: its five files (.keep, .promisor, .pack, .rev, .idx) written
// out, one hardware flush.
func checkPromisorBatches(t *testing.T, stats []remote.BatchStats, what string) {
	t.Helper()
	if len(stats) == 0 {
		t.Fatalf("%s: no fetch batch went through the helper", what)
	}
	for _, s := range stats {
		if !s.Promisor || s.Pack == "" || s.Path != "batch" || s.WriteoutOnly != 5 || s.HardwareFlush != 1 || s.Error != "" {
			t.Errorf("%s: batch %+v", what, s)
		}
	}
}

// TestRemotePartialClone clones with --filter=blob:none through the helper
// and with plain git from each kind of upstream, over v2 and v0; then the
// lazy fetches of a checkout of another commit, git log -p and git blame,
// then a fetch of new history. After each step both hold the same objects
// and know the same ones missing, fsck says the same, every pack of ours
// is a promisor pack made durable with one flush, and a lazy fetch asked
// for exact ids and said nothing of what the repository has.
func TestRemotePartialClone(t *testing.T) {
	t.Parallel() // see "Parallel tests" in harness_test.go
	forKinds(t, func(t *testing.T, env []string, up upstream) {
		servePartial(t, env, up.dir)
		work := t.TempDir()
		ours, theirs := filepath.Join(work, "ours"), filepath.Join(work, "theirs")
		c, stats := durable(t, env, work, "clone", "--filter=blob:none", "durable::"+up.url, ours)
		mustRun(t, c, "partial clone through the helper")
		gittest.Git(t, env, work, "clone", "-q", "--filter=blob:none", up.plain, theirs)
		samePartial(t, env, ours, theirs, "clone")
		checkPromisorBatches(t, stats, "clone and its checkout")
		for _, kv := range []string{"remote.origin.promisor=true", "remote.origin.partialclonefilter=blob:none"} {
			if !strings.Contains(gittest.Git(t, env, ours, "config", "--list"), kv+"\n") {
				t.Errorf("the partial clone lacks %s", kv)
			}
		}

		packets := filepath.Join(work, "packets")
		c, stats = durable(t, append(env, "GIT_TRACE_PACKET="+packets), ours, "checkout", "-q", "main~20")
		mustRun(t, c, "checkout of another commit")
		gittest.Git(t, env, theirs, "checkout", "-q", "main~20")
		samePartial(t, env, ours, theirs, "checkout")
		checkPromisorBatches(t, stats, "checkout")
		// The helper's own packet trace, over every transport: it asked
		// for blobs only, and sent no haves.
		trace := strings.Join(packetLines(t, packets, "durable"), "\n") + "\n"
		wants := regexp.MustCompile(`(?m)^> want ([0-9a-f]{40})`).FindAllStringSubmatch(trace, -1)
		for _, w := range wants {
			if typ := gittest.Git(t, env, ours, "cat-file", "-t", w[1]); typ != "blob\n" {
				t.Errorf("the lazy fetch wanted %s, a %s", w[1], typ)
			}
		}
		if len(wants) == 0 || strings.Contains(trace, "> have ") {
			t.Errorf("the lazy fetch asked for %d blobs, or sent haves:\n%.3000s", len(wants), trace)
		}

		// blame first, of the file edited most: versions neither checkout
		// fetched.
		names := strings.Fields(gittest.Git(t, env, up.dir, "log", "--format=", "--name-only", "main"))
		most, count := "", map[string]int{}
		for _, n := range names {
			if count[n]++; count[n] > count[most] {
				most = n
			}
		}
		for _, args := range [][]string{{"blame", "main", "--", most}, {"log", "-p", "-8", "main"}} {
			c, stats = durable(t, env, ours, args...)
			mustRun(t, c, strings.Join(args, " "))
			if want := gittest.Git(t, env, theirs, args...); string(c.Stdout) != want {
				t.Fatalf("git %s: ours differs from git's; %s", args[0], firstDiff(want, string(c.Stdout)))
			}
			samePartial(t, env, ours, theirs, args[0])
			checkPromisorBatches(t, stats, args[0])
		}

		advance(t, env, up.dir, 3, "v100")
		c, stats = durable(t, env, ours, "fetch")
		mustRun(t, c, "fetch into the partial clone")
		gittest.Git(t, env, theirs, "fetch", "-q")
		samePartial(t, env, ours, theirs, "fetch")
		checkPromisorBatches(t, stats, "fetch")
	})
}

// TestRemotePartialFilters clones with each kind of filter through the
// helper and with plain git (no checkout: no lazy fetch), then fetches new
// history with the filter the clone recorded and, into a full clone, with
// --filter given to git fetch, over v2 and v0: both hold the same objects
// and know the same ones missing.
func TestRemotePartialFilters(t *testing.T) {
	t.Parallel() // see "Parallel tests" in harness_test.go
	specs := []string{"blob:none", "blob:limit=1k", "tree:0", "tree:1", "object:type=commit", "object:type=blob",
		"combine:blob:limit=900+tree:3"}
	for _, v := range []string{"2", "0"} {
		t.Run("v"+v, func(t *testing.T) {
			env := append(env(t), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0="+v)
			base := t.TempDir()
			dir := newUpstream(t, env, base, "up.git")
			servePartial(t, env, dir)
			all := gittest.Objects(t, env, dir)
			var clones [][2]string
			for i, spec := range specs {
				ours, theirs := filepath.Join(base, fmt.Sprint("ours", i)), filepath.Join(base, fmt.Sprint("theirs", i))
				c, stats := durable(t, env, base, "clone", "--no-checkout", "--filter="+spec, "durable::"+dir, ours)
				mustRun(t, c, spec+" clone")
				gittest.Git(t, env, base, "clone", "-q", "--no-checkout", "--filter="+spec, "file://"+dir, theirs)
				if got := gittest.Objects(t, env, theirs); got == all {
					t.Fatalf("%s: git's clone has every object: the filter left nothing out", spec)
				}
				samePartial(t, env, ours, theirs, spec+" clone")
				checkPromisorBatches(t, stats, spec+" clone")
				clones = append(clones, [2]string{ours, theirs})
			}
			// Full clones, which git fetch --filter makes partial.
			fullOurs, fullTheirs := filepath.Join(base, "full-ours"), filepath.Join(base, "full-theirs")
			mustRun(t, gittest.Exec(t, env, base, nil, "git", "clone", "-q", "--no-checkout", "durable::"+dir, fullOurs), "full clone")
			gittest.Git(t, env, base, "clone", "-q", "--no-checkout", "file://"+dir, fullTheirs)

			advance(t, env, dir, 3, "v100")
			for i, spec := range specs {
				if spec == "object:type=blob" && v == "0" {
					// Plain git 2.39 cannot: over v0 its fetch into a
					// clone without commits fetches them lazily, and
					// each lazy fetch does so again, until fork fails.
					continue
				}
				c, stats := durable(t, env, clones[i][0], "fetch")
				plain := gittest.Exec(t, env, clones[i][1], nil, "git", "fetch", "-q")
				if plain.Code != 0 && spec == "object:type=blob" {
					// git 2.55 parses the old tip, a commit this filter
					// left out, and fails ("could not parse commit"):
					// the helper's fetch must fail alike.
					if c.Code == 0 {
						t.Fatalf("%s fetch: git failed (%s), ours did not", spec, bytes.TrimSpace(plain.Stderr))
					}
					continue
				}
				mustRun(t, c, spec+" fetch")
				mustRun(t, plain, spec+" fetch by git")
				samePartial(t, env, clones[i][0], clones[i][1], spec+" fetch")
				checkPromisorBatches(t, stats, spec+" fetch")
			}
			c, stats := durable(t, env, fullOurs, "fetch", "--filter=blob:none", "origin")
			mustRun(t, c, "fetch --filter")
			gittest.Git(t, env, fullTheirs, "fetch", "-q", "--filter=blob:none", "origin")
			if want, got := partialState(t, env, fullTheirs), partialState(t, env, fullOurs); want != got {
				t.Errorf("fetch --filter: objects differ from git's; %s", firstDiff(want, got))
			}
			checkPromisorBatches(t, stats, "fetch --filter")
		})
	}
}

// TestRemotePartialNoFilterServer: an upstream that does not allow filters
// gets no filter; git's warning is printed as often as plain git prints it
// (twice over v0, once over v2), and every object comes, in a promisor
// pack, as with plain git.
func TestRemotePartialNoFilterServer(t *testing.T) {
	t.Parallel() // see "Parallel tests" in harness_test.go
	forKinds(t, func(t *testing.T, env []string, up upstream) {
		work := t.TempDir()
		ours, theirs := filepath.Join(work, "ours"), filepath.Join(work, "theirs")
		c, stats := durable(t, env, work, "clone", "--no-checkout", "--filter=blob:none", "durable::"+up.url, ours)
		mustRun(t, c, "partial clone through the helper")
		plain := gittest.Exec(t, env, work, nil, "git", "clone", "--no-checkout", "--filter=blob:none", up.plain, theirs)
		mustRun(t, plain, "partial clone with git")
		warnings := func(stderr []byte) string {
			return strings.Join(regexp.MustCompile(`(?m)^warning: filtering.*$`).FindAllString(string(stderr), -1), "\n")
		}
		if want, got := warnings(plain.Stderr), warnings(c.Stderr); want == "" || got != want {
			t.Errorf("warnings %q, git's %q\n%s", got, want, c.Stderr)
		}
		if want := gittest.Objects(t, env, up.dir); gittest.Objects(t, env, ours) != want {
			t.Error("ours lacks objects of the upstream")
		}
		samePartial(t, env, ours, theirs, "clone")
		checkPromisorBatches(t, stats, "clone")
	})
}

// TestRemotePartialFsckObjects: with fetch.fsckObjects, a partial clone
// whose trees name a .gitmodules the filter left out is checked as git's
// index-pack --fsck-objects --promisor checks it — each object, not the
// links a filter cut — and succeeds as plain git's does, with the same
// objects.
func TestRemotePartialFsckObjects(t *testing.T) {
	env := env(t, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=fetch.fsckObjects", "GIT_CONFIG_VALUE_0=true")
	base := t.TempDir()
	dir := newUpstream(t, env, base, "up.git")
	servePartial(t, env, dir)
	work := filepath.Join(base, "work")
	gittest.Git(t, env, base, "clone", "-q", dir, work)
	gittest.WriteFile(t, work, ".gitmodules", "[submodule \"s\"]\n\tpath = s\n\turl = ../s\n")
	gittest.Git(t, env, work, "add", ".gitmodules")
	gittest.Git(t, env, work, "commit", "-q", "-m", "submodule")
	gittest.Git(t, env, work, "push", "-q", "origin", "main")
	ours, theirs := filepath.Join(base, "ours"), filepath.Join(base, "theirs")
	c, stats := durable(t, env, base, "clone", "--no-checkout", "--filter=blob:none", "durable::"+dir, ours)
	mustRun(t, c, "partial clone with fetch.fsckObjects")
	gittest.Git(t, env, base, "clone", "-q", "--no-checkout", "--filter=blob:none", "file://"+dir, theirs)
	samePartial(t, env, ours, theirs, "clone")
	checkPromisorBatches(t, stats, "clone")
}

// TestRemotePartialLazyFetchStrace runs the helper of a lazy fetch (a
// checkout in a partial clone) under strace: its promisor pack's five files
// are each renamed into place after a completed writeout, the .idx last,
// and one full flush follows, before git reads the blobs.
func TestRemotePartialLazyFetchStrace(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	dir := newUpstream(t, env, base, "up.git")
	servePartial(t, env, dir)
	ours := filepath.Join(base, "ours")
	c, _ := durable(t, env, "", "clone", "--no-checkout", "--filter=blob:none", "durable::file://"+dir, ours)
	mustRun(t, c, "partial clone")

	env, trace := underStrace(t, env)
	c, stats := durable(t, env, ours, "checkout", "-q", "main")
	mustRun(t, c, "checkout under strace")
	if len(stats) != 1 {
		t.Fatalf("%d fetch batches, want the checkout's 1", len(stats))
	}
	checkPromisorBatches(t, stats, "lazy fetch")
	rep, err := crashtest.CheckPackOrder(readTrace(t, trace))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Objects != 5 || rep.Writeouts < 5 || rep.LastRename != filepath.Join(ours, ".git/objects/pack/pack-"+stats[0].Pack+".idx") {
		t.Errorf("strace: %+v", rep)
	}
	t.Logf("%d files renamed after their writeout, %d flush (of %s) after the last rename", rep.Objects, rep.Flushes, filepath.Base(rep.Flushed))
}
