package integration

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestTrace2FormMatchesGit: the fsync counters are written in the form
// of the git that runs (git 2.39: data events "fsync/<name>" with the
// count as a string; 2.42 and later: counter events) — git's own tests
// (t5351's check_fsync_events) read them. Stock git unpack-objects with
// batch on the same pack is the oracle: same events, same counts.
func TestTrace2FormMatchesGit(t *testing.T) {
	env := env(t)
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 3, 3)
	pack := packOf(t, env, src, "main\n", "--revs")
	var got [2][]string
	for i, cmd := range []string{"unpack-objects", "unpack-durable"} {
		repo := gittest.Init(t, env, true, "")
		gittest.Git(t, env, repo, "config", "core.fsync", "loose-object")
		gittest.Git(t, env, repo, "config", "core.fsyncMethod", "batch")
		trace := filepath.Join(t.TempDir(), "trace2.json")
		r := unpackInto(t, append(env, "GIT_TRACE2_EVENT="+trace), repo, cmd, pack, "-q")
		if r.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, r.Code, r.Stderr)
		}
		got[i] = fsyncEvents(t, trace)
	}
	if len(got[0]) == 0 || strings.Join(got[0], "|") != strings.Join(got[1], "|") {
		t.Errorf("fsync events\ngit:  %q\nours: %q", got[0], got[1])
	}
}

// TestTrace2T5351 runs the case "unpack big object in stream
// (core.fsyncmethod=batch)" of git 2.39's t/t5351-unpack-large-objects.sh
// with git-unpack-durable in the place of git unpack-objects: two commits
// of a 1.5 MB blob each, core.bigFileThreshold=1m (the blobs are streamed),
// core.fsync=loose-object and core.fsyncmethod=batch, GIT_TEST_FSYNC=true.
// The script's check_fsync_events keeps the trace lines that begin
// {"event":"data", and name the category fsync, cuts them up to
// "category":"fsync", and the closing brace, and wants exactly
//
//	"key":"fsync/writeout-only","value":"6"
//	"key":"fsync/hardware-flush","value":"1"
//
// (git's own run, beside, must pass the same check). The events must also
// carry a session id nested under the one of the git that ran ours.
func TestTrace2T5351(t *testing.T) {
	env := env(t)
	if v := strings.TrimSpace(gittest.Git(t, env, "", "version")); !regexp.MustCompile(`^git version 2\.(39|4[01])\.`).MatchString(v) {
		t.Skipf("%s writes counter events, not the data events of git 2.39's t5351", v)
	}
	src := gittest.Init(t, env, false, "")
	rng := rand.New(rand.NewPCG(5351, 1))
	for _, name := range []string{"foo", "bar"} {
		blob := make([]byte, 1500000)
		for i := range blob {
			blob[i] = byte(rng.Uint32())
		}
		gittest.WriteFile(t, src, "big-blob", string(blob))
		gittest.Git(t, env, src, "add", "big-blob")
		gittest.Git(t, env, src, "commit", "-q", "-m", name)
	}
	pack := packOf(t, env, src, "HEAD\n", "--revs")
	want := `"key":"fsync/writeout-only","value":"6"` + "\n" + `"key":"fsync/hardware-flush","value":"1"`
	dataLine := regexp.MustCompile(`^\{"event":"data",.*"category":"fsync",`)
	for _, cmd := range []string{"unpack-objects", "unpack-durable"} {
		dest := gittest.Init(t, env, true, "")
		gittest.Git(t, env, dest, "config", "core.bigFileThreshold", "1m")
		trace := filepath.Join(t.TempDir(), "trace2.txt")
		c := gittest.Exec(t, append(env, "GIT_TRACE2_EVENT="+trace, "GIT_TEST_FSYNC=true"), "", pack,
			"git", "-C", dest, "-c", "core.fsync=loose-object", "-c", "core.fsyncmethod=batch", cmd)
		if c.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, c.Code, c.Stderr)
		}
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		var actual []string
		parent := ""
		for _, l := range strings.Split(string(b), "\n") {
			var ev struct{ Event, Sid string }
			json.Unmarshal([]byte(l), &ev)
			if ev.Event == "version" && parent == "" {
				parent = ev.Sid // the first git: the one the test ran
			}
			if loc := dataLine.FindStringIndex(l); loc != nil {
				actual = append(actual, strings.TrimSuffix(l[loc[1]:], "}"))
				if cmd == "unpack-durable" && !strings.HasPrefix(ev.Sid, parent+"/") {
					t.Errorf("session id %q of our event is not nested under git's %q", ev.Sid, parent)
				}
			}
		}
		if got := strings.Join(actual, "\n"); got != want {
			t.Errorf("%s: check_fsync_events finds\n%s\nwant\n%s\ntrace:\n%s", cmd, got, want, b)
		}
		if got := gittest.Git(t, env, dest, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"); strings.Count(got, "\n") != 6 {
			t.Errorf("%s: %d objects, want 6", cmd, strings.Count(got, "\n"))
		}
	}
}
