package repo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/reftable"
	"github.com/git-durable/git-durable/object"
)

// TestReadReftable: the refs read from reftable tables are those git
// for-each-ref lists (symbolic refs left to their targets), for SHA-1 and
// SHA-256, small blocks (many, with restarts and an index) and git's
// default, a stack of tables where newer ones update and delete refs of
// older ones, and after git pack-refs compacted them; a table cut short or
// with a byte changed is an error.
func TestReadReftable(t *testing.T) {
	git := gittest.NewGit(t, 2, 45)
	// A stack of tables: git's tests' switch for no compaction after each
	// write (reftable.autoCompaction came in 2.48).
	env := append(sealed(t), "GIT_TEST_REFTABLE_AUTOCOMPACTION=false")
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-C", dir}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	for _, tc := range []struct {
		name, format, blockSize string
	}{{"sha1 small blocks", "sha1", "256"}, {"sha1", "sha1", ""}, {"sha256 small blocks", "sha256", "512"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r.git")
			run(filepath.Dir(dir), "init", "-q", "--bare", "--ref-format=reftable", "--object-format="+tc.format, dir)
			run(dir, "config", "reftable.autoCompaction", "false")
			if tc.blockSize != "" {
				run(dir, "config", "reftable.blockSize", tc.blockSize)
			}
			tree := strings.TrimSpace(run(dir, "write-tree"))
			var commits []string
			for i := range 5 {
				cmd := exec.Command(git, "-C", dir, "commit-tree", "-m", fmt.Sprint(i), tree)
				cmd.Env = gittest.Tick(env, i)
				out, err := cmd.Output()
				if err != nil {
					t.Fatal(err)
				}
				commits = append(commits, strings.TrimSpace(string(out)))
			}
			var b strings.Builder
			for i := range 400 {
				fmt.Fprintf(&b, "create refs/heads/feature/a-rather-long-branch-name-%04d %s\n", i, commits[i%5])
			}
			cmd := exec.Command(git, "-C", dir, "update-ref", "--stdin")
			cmd.Env, cmd.Stdin = env, strings.NewReader(b.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			run(dir, "tag", "-a", "-m", "t", "v1", commits[0])
			run(dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/feature/a-rather-long-branch-name-0001")
			run(dir, "update-ref", "refs/heads/feature/a-rather-long-branch-name-0002", commits[4])
			run(dir, "update-ref", "-d", "refs/heads/feature/a-rather-long-branch-name-0003")
			run(dir, "update-ref", "ORIG_HEAD", commits[2])
			check := func(when string) {
				t.Helper()
				var want []string
				for _, l := range strings.Split(strings.TrimSpace(run(dir, "for-each-ref", "--format=%(objectname) %(symref)")), "\n") {
					if id, sym, _ := strings.Cut(l, " "); sym == "" {
						want = append(want, id)
					}
				}
				ids, err := reftable.Values(filepath.Join(dir, "reftable"))
				if err != nil {
					t.Fatalf("%s: %v", when, err)
				}
				if got, w := sortedHex(ids), sortedStrings(want); got != w {
					t.Errorf("%s: %d refs read, git lists %d", when, len(ids), len(want))
				}
			}
			list, _ := os.ReadFile(filepath.Join(dir, "reftable", "tables.list"))
			if n := strings.Count(string(list), "\n"); n < 5 {
				t.Fatalf("a stack of %d tables, want several", n)
			}
			check("a stack of tables")
			run(dir, "pack-refs", "--all")
			check("compacted")

			// Damage: the one table cut short, then a byte of it changed.
			list, _ = os.ReadFile(filepath.Join(dir, "reftable", "tables.list"))
			table := filepath.Join(dir, "reftable", strings.TrimSpace(string(list)))
			good, err := os.ReadFile(table)
			if err != nil {
				t.Fatal(err)
			}
			os.Chmod(table, 0o644)
			for what, bad := range map[string][]byte{
				"cut short":      good[:len(good)*2/3],
				"a byte changed": append(append(append([]byte{}, good[:len(good)-10]...), good[len(good)-10]^0x40), good[len(good)-9:]...),
			} {
				if err := os.WriteFile(table, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				if ids, err := reftable.Values(filepath.Join(dir, "reftable")); err == nil {
					t.Errorf("%s: %d refs read, no error", what, len(ids))
				}
			}
		})
	}
}

// sortedHex is the ids in hex, sorted, duplicates kept.
func sortedHex(ids []object.ID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return sortedStrings(s)
}

func sortedStrings(s []string) string {
	s = append([]string{}, s...)
	sort.Strings(s)
	return strings.Join(s, "\n")
}

// TestFromEnvReftable: a reftable repository (SHA-1 and SHA-256) named
// by GIT_DIR is worked out without git rev-parse where the git that reads
// the configuration takes its format (2.45 and later), with rev-parse's
// answer; its refs are read without git for-each-ref.
func TestFromEnvReftable(t *testing.T) {
	git := gittest.NewGit(t, 2, 45)
	env := sealed(t)
	t.Setenv("PATH", filepath.Dir(git)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r.git")
			cmd := exec.Command(git, "init", "-q", "--bare", "--ref-format=reftable", "--object-format="+format, dir)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			t.Chdir(dir)
			t.Setenv("GIT_DIR", ".")
			ctx := t.Context()
			want, err := find(ctx)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			got, ok := fromEnv(".", cfg)
			if !ok || got.GitDir != want.GitDir || got.ObjectDir != want.ObjectDir || got.Format != want.Format {
				t.Fatalf("worked out without git: %v, %+v; git rev-parse says %+v", ok, got, want)
			}
			got.Config = cfg
			if !got.reftable() {
				t.Error("not taken for reftable")
			}
			if _, fellBack, err := got.RefValues(ctx); err != nil || fellBack != "" {
				t.Errorf("RefValues: %v, fell back %q", err, fellBack)
			}
		})
	}
}
