package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// fsyncEvents returns the fsync events of a trace2 file as
// "<event> <key or name>=<value or count>", sorted.
func fsyncEvents(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		var ev struct {
			Event, Category, Key, Name string
			Value                      any
			Count                      any
		}
		if json.Unmarshal([]byte(l), &ev) != nil || ev.Category != "fsync" {
			continue
		}
		if ev.Event == "data" {
			out = append(out, ev.Event+" "+ev.Key+"="+jsonString(ev.Value))
		} else {
			out = append(out, ev.Event+" "+ev.Name+"="+jsonString(ev.Count))
		}
	}
	sort.Strings(out)
	return out
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

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
