package integration

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// negotiationEvent is what a trace2 event says of a negotiation.
type negotiationEvent struct {
	Event, Sid, Category, Label, Key, Value, Msg string
	Nesting                                      int
}

// negotiationEvents are the negotiation events of a GIT_TRACE2_EVENT file
// (fetch-pack's region, its rounds, their data), those of a session id
// under a parent's (a helper's) apart from the others; a line that is no
// JSON object fails the test.
func negotiationEvents(t *testing.T, path string) (child, parent []negotiationEvent) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(string(readFile(t, path)), "\n"), "\n") {
		var e negotiationEvent
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Event == "" || e.Sid == "" {
			t.Fatalf("not a trace2 event: %q (%v)", l, err)
		}
		if !strings.HasPrefix(e.Category, "negotiation_") && !strings.HasPrefix(e.Label, "negotiation_") {
			continue
		}
		if strings.Contains(e.Sid, "/") {
			child = append(child, e)
		} else {
			parent = append(parent, e)
		}
	}
	return child, parent
}

// eventKinds are the distinct kinds of a negotiation's events ("data
// negotiation_v2 total_rounds"), sorted.
func eventKinds(events []negotiationEvent) []string {
	seen := map[string]bool{}
	for _, e := range events {
		seen[e.Event+" "+e.Category+" "+e.Label+e.Key] = true
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestRemoteTrace2Negotiation: under GIT_TRACE2_EVENT the helper writes its
// negotiation as git's fetch-pack writes it, over every transport and both
// protocol versions: fetch-pack's region (negotiation_v2 or
// negotiation_v0_v1), a region for each round with the haves it added and
// the haves in vain, the rounds' total — the same kinds of events as plain
// git's fetch on the same clone, under a session id nested in git's. The
// haves added are the haves its packet trace shows, and the total is the
// rounds. (Before: no event of the helper's negotiation.)
func TestRemoteTrace2Negotiation(t *testing.T) {
	forKinds(t, func(t *testing.T, env []string, up upstream) {
		top := t.TempDir()
		ours, theirs := filepath.Join(top, "ours"), filepath.Join(top, "theirs")
		mustRun(t, gittest.Exec(t, env, top, nil, "git", "clone", "-q", "durable::"+up.url, ours), "clone")
		gittest.Git(t, env, top, "clone", "-q", up.plain, theirs)
		// Local commits the upstream lacks, newer than its own, a branch
		// on each: rounds of haves in vain.
		for _, dir := range []string{ours, theirs} {
			work(t, env, dir, 100)
			var refs strings.Builder
			for i, c := range strings.Fields(gittest.Git(t, env, dir, "rev-list", "--max-count=100", "refs/work")) {
				fmt.Fprintf(&refs, "create refs/heads/local-%d %s\n", i, c)
			}
			gittest.GitIn(t, env, dir, []byte(refs.String()), "update-ref", "--stdin")
		}
		advance(t, env, up.dir, 1, "")

		var events [2][]negotiationEvent
		for i, dir := range []string{ours, theirs} {
			trace, packets := filepath.Join(top, "trace2-"+filepath.Base(dir)), filepath.Join(top, "packets-"+filepath.Base(dir))
			tenv := append(env, "GIT_TRACE2_EVENT="+trace, "GIT_TRACE2_EVENT_NESTING=9", "GIT_TRACE_PACKET="+packets)
			mustRun(t, gittest.Exec(t, tenv, dir, nil, "git", "fetch", "-q"), "fetch")
			child, parent := negotiationEvents(t, trace)
			if i == 1 {
				events[i] = append(parent, child...) // remote-curl's fetch-pack is a child
				continue
			}
			events[i] = child
			if len(parent) != 0 {
				t.Errorf("git's own negotiation events in a fetch through the helper: %v", parent)
			}
			rounds, added, total := 0, 0, ""
			for _, e := range child {
				switch {
				case e.Event == "region_enter" && e.Label == "round":
					rounds++
				case e.Key == "haves_added":
					var n int
					json.Unmarshal([]byte(e.Value), &n)
					added += n
				case e.Key == "total_rounds":
					total = e.Value
				}
			}
			haves := map[string]bool{}
			for _, l := range packetLines(t, packets, "durable") {
				if id, ok := strings.CutPrefix(l, "> have "); ok {
					haves[id] = true
				}
			}
			if rounds < 2 || total != strconv.Itoa(rounds) || added != len(haves) {
				t.Errorf("the helper's events: %d rounds, total_rounds %q, %d haves added; its packet trace: %d haves\n%v", rounds, total, added, len(haves), child)
			}
		}
		if a, b := strings.Join(eventKinds(events[0]), "\n"), strings.Join(eventKinds(events[1]), "\n"); a != b || a == "" {
			t.Errorf("the helper's kinds of events\n%s\nplain git's\n%s", a, b)
		}
	})
}
