package repo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/object"
)

// TestFsckOptions reads fetch.fsckObjects, transfer.fsckObjects and
// fetch.fsck.* as git 2.39's fetch-pack does; the error and warning texts
// are git's (checked by hand with git -c … fetch).
func TestFsckOptions(t *testing.T) {
	home := t.TempDir()
	const skipped = "f049978d781cc71ad0f49f0ce35ae77d21320c1e"
	if err := os.WriteFile(filepath.Join(home, "skip"), []byte(skipped+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	kv := func(pairs ...string) Config {
		var c Config
		for i := 0; i < len(pairs); i += 2 {
			c = append(c, Entry{Key: pairs[i], Value: pairs[i+1]})
		}
		return c
	}
	on := []string{"fetch.fsckobjects", "true"}
	with := func(more ...string) Config { return kv(append(append([]string{}, on...), more...)...) }
	for _, tc := range []struct {
		name    string
		cfg     Config
		on      bool
		sev     map[string]fsck.Severity
		skipped bool
		err     string
		out     string
	}{
		{name: "off by default"},
		{name: "transfer", cfg: kv("transfer.fsckobjects", "true"), on: true},
		{name: "fetch wins off", cfg: kv("transfer.fsckobjects", "true", "fetch.fsckobjects", "false")},
		{name: "fetch wins on", cfg: kv("fetch.fsckobjects", "yes", "transfer.fsckobjects", "false"), on: true,
			sev: map[string]fsck.Severity{"hasDotgit": fsck.Error, "badFilemode": fsck.Info}},
		{name: "severities", cfg: with("fetch.fsck.hasdotgit", "ignore", "fetch.fsck.missingemail", "warn"), on: true,
			sev: map[string]fsck.Severity{"hasDotgit": fsck.Ignore, "missingEmail": fsck.Warn, "badTree": fsck.Error}},
		{name: "the last wins", cfg: with("fetch.fsck.hasdotgit", "ignore", "fetch.fsck.hasdotgit", "error"), on: true,
			sev: map[string]fsck.Severity{"hasDotgit": fsck.Error}},
		{name: "unknown id", cfg: with("fetch.fsck.nosuch", "warn"), on: true,
			out: "warning: Skipping unknown msg id 'nosuch'\n"},
		{name: "unknown severity, even off", cfg: kv("fetch.fsck.hasdotgit", "bogus"),
			err: "Unknown fsck message type: 'bogus'"},
		{name: "fatal message", cfg: with("fetch.fsck.nulinheader", "warn"),
			err: "Cannot demote nulinheader to warn"},
		{name: "skip list under ~", cfg: with("fetch.fsck.skiplist", "~/skip"), on: true, skipped: true},
		{name: "skip list missing", cfg: with("fetch.fsck.skiplist", "/nonexistent/skip"),
			err: "could not open object name list: /nonexistent/skip"},
		{name: "skip list ignored when off", cfg: kv("fetch.fsck.skiplist", "/nonexistent/skip")},
		{name: "bad boolean", cfg: kv("fetch.fsckobjects", "maybe"),
			err: "bad boolean config value 'maybe' for 'fetch.fsckobjects'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			o, err := tc.cfg.FsckOptions(object.SHA1, getenv, &out)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.out {
				t.Errorf("printed %q, want %q", out.String(), tc.out)
			}
			if (o != nil) != tc.on {
				t.Fatalf("checks on: %v, want %v", o != nil, tc.on)
			}
			for id, want := range tc.sev {
				if got, _ := o.Severity(id); got != want {
					t.Errorf("%s: %s, want %s", id, got, want)
				}
			}
			if o != nil {
				id, _ := object.ParseID(skipped)
				if o.Skipped(id) != tc.skipped {
					t.Errorf("skipped: %v, want %v", o.Skipped(id), tc.skipped)
				}
			}
		})
	}
}
