package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/batch"
)

func TestCounterEvents(t *testing.T) {
	for v, want := range map[string]bool{
		"git version 2.39.5":               false,
		"git version 2.41.0.windows.1":     false,
		"git version 2.42.0":               true,
		"git version 2.50.1 (Apple Git-1)": true,
		"git version 3.0.0":                true,
		"":                                 true,
		"git version x.y":                  true,
	} {
		if got := counterEvents(v); got != want {
			t.Errorf("counterEvents(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestWriteTrace2Targets: the target is read as git's tr2_dst reads it.
func TestWriteTrace2Targets(t *testing.T) {
	t.Setenv("PATH", "") // no git: the newer (counter) form, and no process
	st := batch.Stats{WriteoutOnly: 3, HardwareFlush: 1}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	var errb bytes.Buffer
	WriteTrace2(env("GIT_TRACE2_EVENT", "true"), &errb, st)
	if n := strings.Count(errb.String(), `"category":"fsync"`); n != 2 || !strings.HasPrefix(errb.String(), `{"event":"counter","sid":"`) {
		t.Errorf("true: %q", errb.String())
	}

	errb.Reset()
	WriteTrace2(env("GIT_TRACE2_EVENT", "relative/path"), &errb, st)
	if errb.String() != "warning: trace2: unknown value for 'GIT_TRACE2_EVENT': 'relative/path'\n" {
		t.Errorf("relative path: %q", errb.String())
	}

	dir := t.TempDir()
	WriteTrace2(env("GIT_TRACE2_EVENT", dir, "GIT_TRACE2_PARENT_SID", "parent-sid", "GIT_TRACE2_EVENT_BRIEF", "1"), &errb, st)
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("a directory target: files %v", files)
	}
	b, _ := os.ReadFile(filepath.Join(dir, files[0].Name()))
	sid := regexp.MustCompile(`^parent-sid/\d{8}T\d{6}\.\d{6}Z-(H[0-9a-f]{8}|Localhost)-P[0-9a-f]{8}$`)
	var ev struct{ Sid, Time, File string }
	json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &ev)
	if !sid.MatchString(ev.Sid) || files[0].Name() != ev.Sid[len("parent-sid/"):] || ev.Time != "" || ev.File != "" {
		t.Errorf("a directory target, brief, under a parent: file %s, event %+v\n%s", files[0].Name(), ev, b)
	}

	errb.Reset()
	WriteTrace2(env("GIT_TRACE2_EVENT", "0"), &errb, st)
	WriteTrace2(env("GIT_TRACE2_EVENT", "true"), &errb, batch.Stats{})
	if errb.Len() != 0 {
		t.Errorf("off, or no counters: %q", errb.String())
	}
}

// TestTrace2Regions: regions and data in git's keys and nesting, events
// nested deeper than GIT_TRACE2_EVENT_NESTING (2 unless set) left out,
// the target opened at the first event only.
func TestTrace2Regions(t *testing.T) {
	for _, tc := range []struct {
		nesting string
		want    []string
	}{
		{"", []string{"region_enter 1 fetch-pack negotiation_v2 ", "region_enter 2 negotiation_v2 round 1", "region_leave 2 negotiation_v2 round 1", "region_leave 1 fetch-pack negotiation_v2 ", "data 1 negotiation_v2 total_rounds 1"}},
		{"3", []string{"region_enter 1 fetch-pack negotiation_v2 ", "region_enter 2 negotiation_v2 round 1", "data 3 negotiation_v2 haves_added 16", "region_leave 2 negotiation_v2 round 1", "region_leave 1 fetch-pack negotiation_v2 ", "data 1 negotiation_v2 total_rounds 1"}},
	} {
		path := filepath.Join(t.TempDir(), "events")
		tr := OpenTrace2(func(k string) string {
			return map[string]string{"GIT_TRACE2_EVENT": path, "GIT_TRACE2_EVENT_NESTING": tc.nesting}[k]
		}, nil)
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("the target made before any event: %v", err)
		}
		tr.Enter("fetch-pack", "negotiation_v2", "")
		tr.Enter("negotiation_v2", "round", "1")
		tr.Data("negotiation_v2", "haves_added", 16)
		tr.Leave("1")
		tr.Leave("")
		tr.Data("negotiation_v2", "total_rounds", 1)
		tr.Close()
		b, _ := os.ReadFile(path)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e struct {
				Event, Category, Label, Msg, Key, Value string
				Nesting                                 int
				TRel                                    *float64 `json:"t_rel"`
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			if (e.Event == "region_leave" || e.Event == "data") != (e.TRel != nil) {
				t.Errorf("t_rel in %q", l)
			}
			got = append(got, fmt.Sprintf("%s %d %s %s%s %s%s", e.Event, e.Nesting, e.Category, e.Label, e.Key, e.Msg, e.Value))
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("nesting %q:\n%s\nwant\n%s", tc.nesting, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
	var nilTrace *Trace2 // GIT_TRACE2_EVENT unset
	nilTrace.Enter("a", "b", "")
	nilTrace.Data("a", "b", 1)
	nilTrace.Leave("")
	nilTrace.Close()
}
