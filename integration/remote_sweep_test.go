package integration

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// rebooted makes the mirror at dir look as after a crash and a boot: the
// helper's record of the boot during which it checked the loose objects
// names another boot.
func rebooted(t *testing.T, dir string) {
	t.Helper()
	gittest.WriteFile(t, dir, "objects/info/durable", "boot a-boot-before-the-crash\n")
}

// objectFile is the path of the loose object id in the bare repository dir.
func objectFile(dir, id string) string { return filepath.Join(dir, "objects", id[:2], id[2:]) }

// breakObject breaks the loose object id of the bare repository dir as a
// crash of a writer that did not sync can: "empty", "truncated" (half its
// bytes), "garbage" (no zlib stream) or "wrong" (another object's content,
// which inflates but does not hash to the name).
func breakObject(t *testing.T, dir, id, how string) {
	t.Helper()
	p := objectFile(dir, id)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	switch how {
	case "empty":
		b = nil
	case "truncated":
		b = b[:len(b)/2]
	case "garbage":
		b = bytes.Repeat([]byte{0}, len(b))
	case "wrong":
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write([]byte("blob 6\x00wrong\n"))
		w.Close()
		b = z.Bytes()
	}
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, b, 0o444); err != nil {
		t.Fatal(err)
	}
}

// oldBlobs returns blobs of the mirror at dir that main~k holds and main
// does not: old versions of files, which no thin pack of a later fetch
// uses as a base.
func oldBlobs(t *testing.T, env []string, dir string, k int) []string {
	t.Helper()
	now := map[string]bool{}
	for _, l := range strings.Split(gittest.Git(t, env, dir, "ls-tree", "-r", "main"), "\n") {
		if f := strings.Fields(l); len(f) >= 3 {
			now[f[2]] = true
		}
	}
	var old []string
	for _, l := range strings.Split(gittest.Git(t, env, dir, "ls-tree", "-r", "main~"+strconv.Itoa(k)), "\n") {
		if f := strings.Fields(l); len(f) >= 3 && f[1] == "blob" && !now[f[2]] {
			if _, err := os.Stat(objectFile(dir, f[2])); err == nil {
				old = append(old, f[2])
			}
		}
	}
	return old
}

// TestRemoteSweep: after a crash (a boot the helper has not seen), the
// first fetch through the helper finds every broken loose object of the
// repository — empty, cut short, not inflating, not hashing to its name —
// also those the fetch never reads (old versions of files), and fetches
// each again by id: exit 0, git fsck --strict clean, each counted
// repaired and named in a warning. Over protocol v2 and over v0 where the
// upstream serves any object by id (uploadpack.allowAnySHA1InWant), the
// fetched pack exploded or kept (fetch.unpackLimit=1: no .keep is left).
// Over a v0 upstream that does not, each is named in one warning with its
// type and what to do, and the fetch succeeds as plain git's. A second
// fetch in the same boot does not read the objects again.
func TestRemoteSweep(t *testing.T) {
	t.Parallel() // see "Parallel tests" in harness_test.go
	for _, tc := range []struct {
		name, version, limit string
		anySHA1, heals       bool
	}{
		{"v2", "2", "", false, true},
		{"v2, kept", "2", "1", false, true},
		{"v0, allowAnySHA1InWant", "0", "", true, true},
		{"v0", "0", "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := env(t, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0="+tc.version)
			base := t.TempDir()
			up := newUpstream(t, env, base, "up.git")
			if tc.anySHA1 {
				gittest.Git(t, env, up, "config", "uploadpack.allowAnySHA1InWant", "true")
			}
			m := filepath.Join(base, "m.git")
			// Loose objects, as a mirror kept current by fetches of fewer
			// than fetch.unpackLimit objects holds them.
			c, _ := durable(t, env, base, "-c", "fetch.unpackLimit=100000", "clone", "--mirror", "durable::file://"+up, m)
			mustRun(t, c, "mirror clone")
			if tc.limit != "" {
				gittest.Git(t, env, m, "config", "fetch.unpackLimit", tc.limit)
			}
			old := oldBlobs(t, env, m, 5)
			if len(old) < 5 {
				t.Fatalf("main~5 has %d blobs main has not, want 5", len(old))
			}
			hows := []string{"empty", "truncated", "garbage", "wrong"}
			for i, how := range hows {
				breakObject(t, m, old[i], how)
			}
			// Over v2: an object the upstream never had, and the loose
			// copy of an object a pack holds too, both broken.
			var orphan, packed string
			if tc.version == "2" {
				orphan = strings.TrimSpace(string(gittest.GitIn(t, env, m, []byte("only here\n"), "hash-object", "-w", "--stdin")))
				breakObject(t, m, orphan, "truncated")
				packed = old[4]
				gittest.GitIn(t, env, m, []byte(packed+"\n"), "pack-objects", "-q", "objects/pack/pack")
				breakObject(t, m, packed, "empty")
			}
			rebooted(t, m)
			advance(t, env, up, 1, "")
			c, stats := durable(t, env, m, "fetch")
			mustRun(t, c, "fetch into the broken mirror")
			if orphan != "" {
				want := "warning: object " + orphan + " (blob) of the repository is broken, and 'file://" + up + "' does not have it: if nothing needs it (git fsck), remove " + objectFile(m, orphan)
				if !strings.Contains(string(c.Stderr), want) {
					t.Errorf("no warning %q:\n%s", want, c.Stderr)
				}
				if !strings.Contains(string(c.Stderr), "warning: object "+packed+" of the repository was broken; removed its loose copy, a pack has it") {
					t.Errorf("no warning of the broken copy of a packed object:\n%s", c.Stderr)
				}
				if _, err := os.Stat(objectFile(m, packed)); !os.IsNotExist(err) {
					t.Errorf("the broken copy of a packed object is still there (%v)", err)
				}
				os.Remove(objectFile(m, orphan)) // as the warning says: nothing needs it
			}
			var repaired int64
			for _, s := range stats {
				repaired += s.Repaired
			}
			if !tc.heals {
				for i := range hows {
					if !strings.Contains(string(c.Stderr), "warning: object "+old[i]) || !strings.Contains(string(c.Stderr), "does not serve objects by id") {
						t.Errorf("no warning naming %s, broken %s:\n%s", old[i], hows[i], c.Stderr)
					}
				}
				if !strings.Contains(string(c.Stderr), "(blob)") {
					t.Errorf("no warning names the type the truncated object's header still says:\n%s", c.Stderr)
				}
				if repaired != 0 {
					t.Errorf("%d repaired over a v0 upstream that serves no object by id", repaired)
				}
				return
			}
			for i := range hows {
				if !strings.Contains(string(c.Stderr), "warning: object "+old[i]+" of the repository was broken; fetched it again") {
					t.Errorf("no warning of the repair of %s, broken %s:\n%s", old[i], hows[i], c.Stderr)
				}
			}
			if repaired != int64(len(hows)) {
				t.Errorf("%d objects repaired, want %d: %+v", repaired, len(hows), stats)
			}
			checkBatches(t, stats)
			gittest.Fsck(t, env, m)
			if keeps, _ := filepath.Glob(filepath.Join(m, "objects/pack/*.keep")); len(keeps) > 0 {
				t.Errorf("left %v", keeps)
			}
			// The same boot: nothing is read again, nothing fetched.
			breakObject(t, m, old[0], "empty")
			c, stats = durable(t, env, m, "fetch")
			mustRun(t, c, "second fetch")
			if len(stats) != 0 || strings.Contains(string(c.Stderr), "broken") {
				t.Errorf("the second fetch of the boot looked at the objects again: %+v\n%s", stats, c.Stderr)
			}
		})
	}
}
