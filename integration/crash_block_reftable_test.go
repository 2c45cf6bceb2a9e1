//go:build linux

package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestBlockReplayReftable: a mirror clone and a mirror's fetch --prune
// through the helper into a repository whose refs are in reftable (git
// 2.45 and later), on ext4, ext4 with fast commits and xfs, recorded at
// the block level and replayed as TestBlockReplayHelper replays the files
// backend's: from the last flush before git returned, the tables and
// tables.list as git left them (with the objects, HEAD and config), and
// git fsck clean, in every crash image.
func TestBlockReplayReftable(t *testing.T) {
	env := realEnv(t, "PATH="+pathOf(newGitEnv(t, 2, 45)))
	template := newUpstream(t, env, t.TempDir(), "up.git")
	cases := []helperCase{
		{name: "mirror clone", repo: "c", run: func(t *testing.T, env []string, root, up string) *gittest.Cmd {
			return gittest.Exec(t, env, root, nil, "git", "clone", "-q", "--mirror", "--ref-format=reftable", "durable::file://"+up, "c")
		}},
		{name: "fetch", repo: "m.git", setup: func(t *testing.T, env []string, root, up string) []string {
			gittest.Git(t, env, up, "branch", "-f", "doomed", "main~3")
			gittest.Git(t, env, root, "clone", "-q", "--mirror", "--ref-format=reftable", "durable::file://"+up, "m.git")
			gittest.Git(t, env, up, "branch", "-D", "doomed")
			advance(t, env, up, 2, "v9")
			return nil
		}, run: func(t *testing.T, env []string, root, up string) *gittest.Cmd {
			return gittest.Exec(t, env, filepath.Join(root, "m.git"), nil, "git", "fetch", "--prune")
		}},
	}
	for _, fsys := range helperFS {
		name := fsys.Type
		if strings.Contains(strings.Join(fsys.Mkfs, " "), "fast_commit") {
			name = "ext4-fast_commit"
		}
		t.Run(name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
					up := filepath.Join(t.TempDir(), "up.git")
					gittest.Git(t, env, "", "clone", "-q", "--bare", "--no-local", template, up)
					s := recordHelper(t, env, fsys, up, c)
					tables := 0
					for p := range s.Files {
						if strings.Contains(p, "/reftable/") {
							tables++
						}
					}
					if tables < 2 {
						t.Fatalf("%d files of reftable/ to check: not a reftable repository?", tables)
					}
					v, err := s.Run()
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("%s, %s: %d files of reftable/, %d loose objects, %d pack files: %s", name, c.name, tables, len(s.Want), len(s.Intact), v)
					if !v.OK() || v.Durable == 0 {
						t.Errorf("%s, %s: %s", name, c.name, v)
					}
				})
			}
		})
	}
}
