//go:build linux

package integration

// Recording a command on a block device and replaying its crash states:
// the block tests' filesystems (ext4With, helperFS), an unpack recorded
// (recordUnpack) and replayed (replay), what the helper left in a
// repository (repositoryState) and the check of a durable image (fsckAt);
// the pack, configuration and sample of the runs with a flush per object.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/blocktest"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	"golang.org/x/sys/unix"
)

// ext4With returns the 32 MB ext4 of the block tests, made with the extra
// mkfs arguments args and mounted with the options opts.
func ext4With(opts string, args ...string) blocktest.FS {
	fsys := blocktest.Ext4(32 << 20)
	fsys.Mkfs = append(append([]string{}, fsys.Mkfs...), args...)
	fsys.Options = opts
	return fsys
}

// recorded is one run of git-unpack-durable on a recorded filesystem.
type recorded struct {
	scenario *blocktest.Scenario
	stats    map[string]any
}

// recordUnpack makes fsys on a recorded loop device, creates a bare
// repository on it and flushes it, runs `git <config…> unpack-durable
// --stats` with pack on stdin there, puts the mark "done" in the log when
// it returns, and unmounts. The scenario wants every object of the pack.
func recordUnpack(t *testing.T, env []string, fsys blocktest.FS, pack []byte, config ...string) recorded {
	t.Helper()
	return recordUnpackAs(t, "", env, fsys, pack, config...)
}

// recordUnpackAs is recordUnpack with the unpack run as the user as asks
// (asUserEnv; "" runs it as the test's own user).
func recordUnpackAs(t *testing.T, as string, env []string, fsys blocktest.FS, pack []byte, config ...string) recorded {
	t.Helper()
	want := packIDs(t, env, pack)
	s := blocktest.Start(t, fsys)
	repo := filepath.Join(s.Root, "repo.git")
	gittest.Git(t, env, s.Root, "init", "-q", "--bare", "-b", "main", repo)
	name, args, cmdEnv := "git", append(config, "unpack-durable", "--stats"), env
	if as != "" {
		name, args, cmdEnv = asUser(t, as, env, nil, []string{repo}, name, args...)
	}
	syncfs(t, s.Root)
	s.Rec.Mark("start")
	c := gittest.Exec(t, cmdEnv, repo, pack, name, args...)
	s.Rec.Mark("done")
	if c.Code != 0 {
		t.Fatalf("git-unpack-durable: exit %d\n%s", c.Code, c.Stderr)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	return recorded{
		scenario: &blocktest.Scenario{
			FS: fsys, Base: s.Rec.Base(), Log: s.Rec.Log(),
			ObjectDir: "repo.git/objects", Format: object.SHA1, Want: want, Done: "done",
			Points: blocktest.PointOptions{Subsets: 3, Seed: 5},
		},
		stats: statsLine(t, c.Stderr),
	}
}

// replay runs the scenario and logs the verdict and how long it took.
func replay(t *testing.T, name string, r recorded) *blocktest.Verdict {
	t.Helper()
	start := time.Now()
	v, err := r.scenario.Run()
	if err != nil {
		t.Fatalf("%s: replay: %v", name, err)
	}
	t.Logf("%s: %d objects, stats %v; replay %v: %s", name, len(r.scenario.Want), r.stats, time.Since(start).Round(time.Millisecond), v)
	return v
}

// syncfs flushes the filesystem holding dir.
func syncfs(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
}

// helperFS are the filesystems on which the helper's whole repository must
// survive a crash: ext4, ext4 with fast commits, and xfs.
var helperFS = []blocktest.FS{blocktest.Ext4(32 << 20), ext4With("", "-O", "fast_commit"), blocktest.XFS(300 << 20)}

// repositoryState reads what git and the helper left in gitDir: the ids of
// its loose objects, its pack files (not a .keep, which git removes), and
// HEAD, config, packed-refs, shallow, every loose ref and reftable's
// tables and tables.list, by their paths
// relative to root (nil for a file that is not there).
func repositoryState(t *testing.T, root, gitDir string) (loose []string, intact, files map[string][]byte) {
	t.Helper()
	intact, files = map[string][]byte{}, map[string][]byte{}
	rel := func(p string) string {
		r, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	read := func(into map[string][]byte, p string) {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		into[rel(p)] = b
	}
	for _, f := range []string{"HEAD", "config", "packed-refs", "shallow"} {
		read(files, filepath.Join(gitDir, f))
	}
	err := filepath.WalkDir(gitDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		in := strings.TrimPrefix(p, gitDir+"/")
		switch dir := filepath.Base(filepath.Dir(p)); {
		case (strings.HasPrefix(in, "refs/") || strings.HasPrefix(in, "reftable/")) && !strings.HasSuffix(p, ".lock"):
			read(files, p)
		case dir == "pack" && strings.HasPrefix(d.Name(), "pack-") && !strings.HasSuffix(p, ".keep"):
			read(intact, p)
		case len(dir) == 2 && strings.HasPrefix(in, "objects/") && !strings.HasPrefix(d.Name(), "tmp_"):
			loose = append(loose, dir+d.Name())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return loose, intact, files
}

// fsckAt returns the check of a durable crash image: git fsck of the
// repository at repo below the image's root finds nothing. The git is the
// first on env's PATH (a newer one for reftable).
func fsckAt(env []string, repo string) func(root string) error {
	git := "git"
	for _, dir := range filepath.SplitList(pathOf(env)) {
		if st, err := os.Stat(filepath.Join(dir, "git")); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			git = filepath.Join(dir, "git")
			break
		}
	}
	return func(root string) error {
		cmd := exec.Command(git, "--git-dir="+filepath.Join(root, repo), "fsck", "--strict", "--no-dangling", "--no-progress")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		for _, line := range strings.Split(string(out), "\n") {
			if line != "" && !strings.HasPrefix(line, "notice:") && err == nil {
				err = errors.New("complaints")
			}
		}
		if err != nil {
			return fmt.Errorf("git fsck: %v: %s", err, out)
		}
		return nil
	}
}

// smallPack is a pack of about 330 objects, for the paths that flush the
// device for every object.
func smallPack(t *testing.T, env []string) []byte {
	t.Helper()
	return packOf(t, env, historyRepo(t, env), "main~700\n", "--revs", "--delta-base-offset")
}

// fsyncConfig asks for git's fsync method: a full flush of every object.
var fsyncConfig = []string{"-c", "core.fsync=loose-object", "-c", "core.fsyncMethod=fsync"}

// sampled replays a sample of the flush boundaries before the return (and
// every one after it), for runs with a flush per object.
var sampled = blocktest.PointOptions{Subsets: 1, Seed: 3, MaxBoundaries: 60}
