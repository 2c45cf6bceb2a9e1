package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/report"
	"github.com/git-durable/git-durable/internal/verify"
	"github.com/git-durable/git-durable/object"
)

// RefetchFlag is the argument that selects, in git-remote-durable, the
// repair that mend runs in a repository: the remote helper's Refetch.
const RefetchFlag = "--refetch"

// mend puts right what the verification c found in the repository dir,
// which the runner holds: each object whose own copy is broken (a packed
// entry whose bytes are bad or cut off, a loose file) is fetched again by
// id from the repository's upstream and written durably into a pack of
// its own (by a helper run with RefetchFlag); each pack that held a broken copy is then written
// again with good copies in their place, durably, before it replaces the
// damaged one (rewritePack); a pack without a usable index gets one again
// (reindex); a ref whose object is missing is removed and fetched again
// by an update. It returns what it did, one phrase each, and what is left
// broken as the error.
func (o *options) mend(ctx context.Context, dir string, c *checked, lock *os.File) ([]string, error) {
	r, err := openRepo(ctx, dir)
	if err != nil {
		return nil, err
	}
	var did []string
	own, packs, byPack := brokenCopies(c.report)
	var fetched []string // the packs the refetch wrote
	if len(own) > 0 {
		left, packs, err := o.refetch(ctx, dir, own)
		fetched = packs
		if err != nil {
			return did, err
		}
		if len(left) > 0 {
			return did, fmt.Errorf("the upstream did not send %d of the %d broken objects (%s): they are left as they are",
				len(left), len(own), describeIDs(left))
		}
		did = append(did, fmt.Sprintf("fetched %d %s again", len(own), plural(len(own), "object", "objects")))
	}
	good, closeGood := openFetched(fetched, r.Format)
	defer closeGood()
	for path, why := range packs {
		what, err := mendPack(ctx, r, path, why, byPack[path], good)
		if err != nil {
			return did, fmt.Errorf("%s: %v", filepath.Base(path), err)
		}
		did = append(did, what)
	}
	// A ref whose object was missing or unreadable, and is still missing
	// after the objects fetched again, is removed and fetched again.
	var removed []string
	if len(c.missing) > 0 {
		removed, _ = removeMissingTips(ctx, dir)
	}
	if len(removed) > 0 {
		if err := o.fetch(ctx, dir, lock, filepath.Join(dir, statsName)); err != nil {
			return did, fmt.Errorf("refs whose object was missing (%s) were removed, and the update that fetches them again failed: %v",
				strings.Join(removed, ", "), err)
		}
		did = append(did, fmt.Sprintf("fetched %d %s again", len(removed), plural(len(removed), "ref", "refs")))
	}
	if _, err := gitOut(ctx, dir, nil, "prune-packed", "-q"); err != nil {
		return did, err
	}
	return did, stillBroken(r, c, good)
}

// brokenCopies sorts what a verification found: the objects whose own
// copy is broken, to fetch again; the packs to mend, with why; and the
// broken copies of each.
func brokenCopies(rep *verify.Report) ([]object.ID, map[string]string, map[string]map[object.ID]bool) {
	seen := map[object.ID]bool{}
	var own []object.ID
	packs := map[string]string{}
	byPack := map[string]map[object.ID]bool{}
	for _, d := range rep.Damage {
		if d.Own && !seen[d.ID] {
			seen[d.ID] = true
			own = append(own, d.ID)
		}
		if d.Pack == "" || !d.Own && !d.ID.IsZero() {
			continue
		}
		if packs[d.Pack] == "" {
			packs[d.Pack] = d.Why
		}
		if d.Own {
			if byPack[d.Pack] == nil {
				byPack[d.Pack] = map[object.ID]bool{}
			}
			byPack[d.Pack][d.ID] = true
		}
	}
	return own, packs, byPack
}

// refetch runs git-remote-durable --refetch in the repository dir, from
// the URL of its first remote, for ids, and returns those it could not
// get and the packs it wrote.
func (o *options) refetch(ctx context.Context, dir string, ids []object.ID) ([]object.ID, []string, error) {
	rs, err := remotesOf(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	if len(rs) == 0 {
		return ids, nil, errors.New("no remote to fetch the broken objects from")
	}
	url := strings.TrimPrefix(rs[0].url, "durable::")
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	var in bytes.Buffer
	for _, id := range ids {
		in.WriteString(id.String() + "\n")
	}
	cmd := exec.CommandContext(ctx, self, RefetchFlag, url)
	cmd.Dir = workTop(dir)
	stats := filepath.Join(dir, statsName)
	cmd.Env = append(proc.WithoutRepoEnv(os.Environ()), "GIT_CEILING_DIRECTORIES="+filepath.Dir(workTop(dir)),
		"PATH="+helperPATH(), "GIT_TERMINAL_PROMPT=0", report.StatsEnv+"="+stats)
	cmd.Stdin = &in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	keepStats(stats)
	if err != nil {
		return nil, nil, errors.New(cause(errb.String(), err))
	}
	var left []object.ID
	var packs []string
	for _, l := range strings.Split(out.String(), "\n") {
		if p, ok := strings.CutPrefix(l, "pack "); ok {
			packs = append(packs, p)
		} else if id, err := object.ParseID(l); err == nil {
			left = append(left, id)
		}
	}
	return left, packs, nil
}

// openRepo reads where the repository dir keeps its objects, its object
// format and its configuration.
func openRepo(ctx context.Context, dir string) (*repo.Repo, error) {
	out, err := gitOut(ctx, dir, nil, "rev-parse", "--absolute-git-dir", "--git-path", "objects", "--show-object-format", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	l := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(l) != 4 {
		return nil, fmt.Errorf("unexpected output of git rev-parse: %q", out)
	}
	r := &repo.Repo{GitDir: l[0], ObjectDir: l[1], CommonDir: l[3]}
	for _, p := range []*string{&r.ObjectDir, &r.CommonDir} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(workTop(dir), *p)
		}
	}
	if r.Format, err = object.ParseFormat(l[2]); err != nil {
		return nil, err
	}
	r.Config, err = repo.Load(ctx, r.GitDir)
	return r, err
}

// describeIDs names a few of ids.
func describeIDs(ids []object.ID) string {
	var s []string
	for i, id := range ids {
		if i == 3 {
			s = append(s, fmt.Sprintf("and %d more", len(ids)-i))
			break
		}
		s = append(s, id.String())
	}
	return strings.Join(s, ", ")
}
