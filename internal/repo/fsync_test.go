package repo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/gittest"
)

var fsyncCases = [][]string{
	{"core.fsync=loose-object", "core.fsyncMethod=batch"},
	{"core.fsync=loose-object", "core.fsyncMethod=fsync"},
	{"core.fsync=loose-object", "core.fsyncMethod=writeout-only"},
	{"core.fsync=loose-object"},
	{"core.fsync=objects", "core.fsyncMethod=batch"},
	{"core.fsync=all", "core.fsyncMethod=batch"},
	{"core.fsync=committed", "core.fsyncMethod=batch"},
	{"core.fsync=comm", "core.fsyncMethod=batch"}, // prefix of committed
	{"core.fsync=loo", "core.fsyncMethod=batch"},
	{"core.fsync=all,-loose-object", "core.fsyncMethod=batch"},
	{"core.fsync=loose-object,none", "core.fsyncMethod=batch"}, // positive survives none
	{"core.fsync=none"},
	{"core.fsync=none,loose-object", "core.fsyncMethod=batch"}, // none only as last token
	{"core.fsync=", "core.fsyncMethod=batch"},
	{"core.fsync=pack", "core.fsyncMethod=batch"},
	{"core.fsync=bogus,loose-object", "core.fsyncMethod=batch"},
	{"core.fsyncMethod=batch"},
	{"core.fsyncObjectFiles=true"},
	{"core.fsyncObjectFiles=true", "core.fsyncMethod=batch"},
	{"core.fsyncObjectFiles=true", "core.fsyncMethod=writeout-only"},
	{"core.fsyncObjectFiles=false", "core.fsync=loose-object"},
	{"core.fsync=loose-object", "core.fsyncMethod=bogus"},
}

// TestFsyncMethodMatchesGit runs git unpack-objects under each configuration
// with trace2 and checks that the method we resolve syncs as git did.
func TestFsyncMethodMatchesGit(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t, "GIT_TEST_FSYNC=1")
	src := gittest.Init(t, env, false, "")
	gittest.WriteFile(t, src, "a", "a\n")
	gittest.WriteFile(t, src, "b", "b\n")
	gittest.Git(t, env, src, "add", ".")
	gittest.Git(t, env, src, "commit", "-qm", "x")
	pack := gittest.GitIn(t, env, src, []byte{}, "pack-objects", "--all", "--stdout") // 4 objects
	for _, kvs := range fsyncCases {
		dst := gittest.Init(t, env, true, "")
		trace := filepath.Join(t.TempDir(), "trace")
		var args []string
		for _, kv := range kvs {
			args = append(args, "-c", kv)
		}
		gittest.GitIn(t, append(env, "GIT_TRACE2_EVENT="+trace), dst, pack, append(args, "unpack-objects", "-q")...)
		wo, hf := counters(t, trace)
		var want batch.Method
		switch {
		case wo == 4 && hf == 1:
			want = batch.Batch
		case wo == 0 && hf == 4:
			want = batch.Fsync
		case wo == 4 && hf == 0:
			want = batch.WriteoutOnly
		case wo == 0 && hf == 0:
			want = batch.None
		default:
			t.Fatalf("%v: git did writeout-only %d, hardware-flush %d", kvs, wo, hf)
		}
		var c Config
		for _, kv := range kvs {
			k, v, _ := strings.Cut(kv, "=")
			c = append(c, Entry{Key: Canonical(k), Value: v})
		}
		got, err := c.fsyncPlan(func(string) {}, false)
		if err != nil || got.loose != want {
			t.Errorf("%v: resolved %v (%v), git behaved as %v", kvs, got.loose, err, want)
		}

		// A kept pack is synced wherever git index-pack syncs the pack it
		// writes (stricter is fine: loose-object alone syncs ours too).
		trace = filepath.Join(t.TempDir(), "trace")
		gittest.GitIn(t, append(env, "GIT_TRACE2_EVENT="+trace), dst, pack, append(args, "index-pack", "--stdin")...)
		if wo, hf := counters(t, trace); (wo > 0 || hf > 0) && got.pack == batch.None {
			t.Errorf("%v: a kept pack is not synced; git index-pack did writeout-only %d, hardware-flush %d", kvs, wo, hf)
		}
	}
}

func counters(t *testing.T, path string) (wo, hf int) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0 // no trace events at all
	}
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct {
			Event, Category, Key, Name string
			Value                      any
			Count                      int
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Category != "fsync" {
			continue
		}
		n := ev.Count
		if s, ok := ev.Value.(string); ok {
			n = atoi(s)
		}
		switch {
		case ev.Key == "fsync/writeout-only" || ev.Name == "writeout-only":
			wo = n
		case ev.Key == "fsync/hardware-flush" || ev.Name == "hardware-flush":
			hf = n
		}
	}
	return wo, hf
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestDefaultIsBatch(t *testing.T) {
	p, err := Config{{Key: "core.compression", Value: "3"}}.fsyncPlan(func(string) {}, false)
	if err != nil || p.loose != batch.Batch || p.pack != batch.Batch || p.unsynced != "" {
		t.Errorf("got %+v %v", p, err)
	}
}

func TestWarnings(t *testing.T) {
	var warns []string
	c := Config{{Key: "core.fsync", Value: "bogus"}, {Key: "core.fsyncmethod", Value: "nope"}, {Key: "core.fsyncobjectfiles", Value: "true"}}
	c.fsyncPlan(func(w string) { warns = append(warns, w) }, false)
	want := []string{"ignoring unknown core.fsync component 'bogus'", "ignoring unknown core.fsyncMethod value 'nope'",
		"core.fsyncObjectFiles is deprecated; use core.fsync instead"}
	if strings.Join(warns, "|") != strings.Join(want, "|") {
		t.Errorf("warnings %q", warns)
	}
}

// TestUnsynced checks which configurations say that they leave loose
// objects without any sync, and what they say: every one where a setting
// the user made leaves them out by git's reading, none where nothing was
// set or the user took them away by name.
func TestUnsynced(t *testing.T) {
	for _, tt := range []struct {
		kvs      []string
		unsynced string // "" for silence
		fix      string
	}{
		{nil, "", ""},
		{[]string{"core.compression=3"}, "", ""},
		{[]string{"core.fsyncMethod=batch"}, "core.fsyncMethod=batch is set but core.fsync is not, and git's default core.fsync leaves out loose-object", "loose-object"},
		{[]string{"core.fsyncMethod=fsync"}, "core.fsyncMethod=fsync is set but", "loose-object"},
		{[]string{"core.fsyncMethod=Batch"}, "core.fsyncMethod=Batch is set but", "loose-object"},
		{[]string{"core.fsyncObjectFiles=false"}, "core.fsyncObjectFiles=false is set but", "loose-object"},
		{[]string{"core.fsyncMethod=batch", "core.fsyncObjectFiles=false"}, "core.fsyncMethod=batch and core.fsyncObjectFiles=false are set but", "loose-object"},
		{[]string{"core.fsync=reference"}, "core.fsync=reference does not name loose-object", "reference,loose-object"},
		{[]string{"core.fsync=reference", "core.fsyncMethod=batch"}, "core.fsync=reference does not name loose-object", "reference,loose-object"},
		{[]string{"core.fsync=pack,"}, "core.fsync=pack, does not name loose-object", "pack,loose-object"},
		{[]string{"core.fsync="}, "core.fsync= does not name loose-object", "loose-object"},
		{[]string{"core.fsync=none"}, "", ""},
		{[]string{"core.fsync=pack,none"}, "", ""},
		{[]string{"core.fsync=-loose-object"}, "", ""},
		{[]string{"core.fsync=all,-objects", "core.fsyncMethod=batch"}, "", ""},
		{[]string{"core.fsync=committed", "core.fsyncMethod=batch"}, "", ""},
		{[]string{"core.fsyncObjectFiles=true"}, "", ""},
		{[]string{"core.fsync=loose-object", "core.fsyncMethod=writeout-only"}, "", ""},
	} {
		var c Config
		for _, kv := range tt.kvs {
			k, v, _ := strings.Cut(kv, "=")
			c = append(c, Entry{Key: Canonical(k), Value: v, Scope: "global"})
		}
		p, err := c.fsyncPlan(func(string) {}, false)
		if err != nil {
			t.Fatalf("%v: %v", tt.kvs, err)
		}
		if tt.unsynced == "" && p.unsynced != "" || !strings.HasPrefix(p.unsynced, tt.unsynced) || p.unsynced != "" && p.fixValue != tt.fix {
			t.Errorf("%v: unsynced %q, fix %q; want %q…, fix %q", tt.kvs, p.unsynced, p.fixValue, tt.unsynced, tt.fix)
		}
		if (p.unsynced != "") != (p.loose == batch.None && len(tt.kvs) > 0 && tt.unsynced != "") {
			t.Errorf("%v: unsynced %q with loose objects synced by %v", tt.kvs, p.unsynced, p.loose)
		}
		if p.unsynced != "" && p.fixScope != "global" {
			t.Errorf("%v: fix in scope %q, want the scope of the setting (global)", tt.kvs, p.fixScope)
		}
	}
}

// TestDurableReading: the helper's reading syncs loose objects unless the
// settings turn them off by name, with core.fsyncMethod where it names a
// method, else batch; a value git does not know is ignored, never read as
// none, and the notice says what was read otherwise than by git.
func TestDurableReading(t *testing.T) {
	for _, tt := range []struct {
		kvs    []string
		loose  batch.Method
		notice string // a part of it; "" for none
	}{
		{nil, batch.Batch, ""},
		{[]string{"core.fsyncMethod=bathc"}, batch.Batch, "ignored the unknown core.fsyncMethod value 'bathc'"},
		{[]string{"core.fsync=comitted"}, batch.Batch, "ignored the unknown core.fsync component 'comitted'"},
		{[]string{"core.fsync=comitted", "core.fsyncMethod=fsync"}, batch.Fsync, "objects are synced with fsync"},
		{[]string{"core.fsyncMethod=batch"}, batch.Batch, "git's own reading of these settings leaves loose objects unsynced"},
		{[]string{"core.fsync=reference"}, batch.Batch, "git's own reading"},
		{[]string{"core.fsync=committed"}, batch.Batch, ""},
		{[]string{"core.fsync=committed", "core.fsyncMethod=batch"}, batch.Batch, ""},
		{[]string{"core.fsync=loose-object", "core.fsyncMethod=fsync"}, batch.Fsync, ""},
		{[]string{"core.fsync=loose-object", "core.fsyncMethod=writeout-only"}, batch.WriteoutOnly, ""},
		{[]string{"core.fsyncObjectFiles=true"}, batch.Batch, ""},
		{[]string{"core.fsync=none"}, batch.None, ""},
		{[]string{"core.fsync=-loose-object", "core.fsyncMethod=batch"}, batch.None, ""},
		{[]string{"core.fsync=all,-objects"}, batch.None, ""},
		{[]string{"core.fsyncObjectFiles=false"}, batch.None, ""},
	} {
		var c Config
		for _, kv := range tt.kvs {
			k, v, _ := strings.Cut(kv, "=")
			c = append(c, Entry{Key: Canonical(k), Value: v, Scope: "global"})
		}
		p, err := c.fsyncPlan(func(string) {}, true)
		if err != nil {
			t.Fatalf("%v: %v", tt.kvs, err)
		}
		if p.loose != tt.loose || (tt.notice == "") != (p.notice == "") || !strings.Contains(p.notice, tt.notice) {
			t.Errorf("%v: %v, notice %q; want %v, notice with %q", tt.kvs, p.loose, p.notice, tt.loose, tt.notice)
		}
		if p.unsynced != "" {
			t.Errorf("%v: unsynced %q under the durable reading", tt.kvs, p.unsynced)
		}
	}
}

// TestFixNeverRepeatsATypo: the command that turns the sync on under git's
// reading keeps the components git knew and drops those it ignored.
func TestFixNeverRepeatsATypo(t *testing.T) {
	for value, fix := range map[string]string{"comitted": "loose-object", "reference,comited": "reference,loose-object", "-pack,refrence": "-pack,loose-object"} {
		p, err := Config{{Key: "core.fsync", Value: value, Scope: "global"}}.fsyncPlan(func(string) {}, false)
		if err != nil || p.fixValue != fix {
			t.Errorf("core.fsync=%s: fix %q (%v), want %q", value, p.fixValue, err, fix)
		}
	}
}

func TestSyncsRefs(t *testing.T) {
	for v, want := range map[string]bool{"": false, "reference": true, "committed": true, "added": true, "all": true,
		"objects": false, "all,-reference": true, // git: positive tokens win
		"committed,-reference": true, "-reference": false, "ref": true, "none": false, "loose-object,pack": false} {
		var c Config
		if v != "" {
			c = Config{{Key: "core.fsync", Value: v}}
		}
		if got := c.SyncsRefs(); got != want {
			t.Errorf("core.fsync=%q: %v, want %v", v, got, want)
		}
	}
}
