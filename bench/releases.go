package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// releases is an upstream's refs as of a date, as a project with release
// branches shows them: main, a maint-<major>.<minor> branch at the newest
// release of each series, and every tag made by then.
type releases struct {
	refs     map[string]string // name → object
	branches int
	tags     int
}

// finalTag is a release's tag: [v]<major>.<minor>.<patch>, no -rc.
var finalTag = regexp.MustCompile(`^refs/tags/v?(\d+)\.(\d+)\.(\d+)$`)

// releasesAt reads the refs of the history in repo as of date
// ("2006-01-02", UTC): its HEAD branch as it stood (as main), every tag created
// by then, and a branch for each release series from oldest ("major.minor";
// "": the newest series of the date) on — the history's own branches named
// [v]<major>.<minor> as they stood, or, where it has none, one at the newest
// release tagged in each series. It returns the oldest series.
func releasesAt(repo, date string, series int, oldest string) (*releases, string, error) {
	when, err := time.Parse("2006-01-02", date)
	if err != nil {
		return nil, "", fmt.Errorf("-releases: %q is not a date (2006-01-02)", date)
	}
	branch, err := gitOut(repo, "symbolic-ref", "-q", "HEAD")
	if err != nil {
		return nil, "", fmt.Errorf("-releases: %s has no HEAD branch", repo)
	}
	main, err := gitOut(repo, "rev-list", "-1", "--first-parent", "--before="+strconv.FormatInt(when.Unix(), 10), branch)
	if err != nil || main == "" {
		return nil, "", fmt.Errorf("-releases: no %s before %s", branch, date)
	}
	out, err := gitOut(repo, "for-each-ref", "--format=%(refname) %(objectname) %(*objectname) %(creatordate:unix)", "refs/tags")
	if err != nil {
		return nil, "", err
	}
	r := &releases{refs: map[string]string{"refs/heads/main": main}}
	newest := map[[2]int]string{} // series → its newest release's commit
	patch := map[[2]int]int{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		at, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
		if at > when.Unix() {
			continue
		}
		r.refs[f[0]], r.tags = f[1], r.tags+1
		m := finalTag.FindStringSubmatch(f[0])
		if m == nil || len(f) != 4 {
			continue
		}
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		p, _ := strconv.Atoi(m[3])
		k := [2]int{major, minor}
		if _, ok := newest[k]; !ok || p > patch[k] {
			newest[k], patch[k] = f[2], p
		}
	}
	if own, err := seriesBranches(repo, when.Unix()); err != nil {
		return nil, "", err
	} else if len(own) > 0 {
		newest = own // the history's own release branches, as they stood
	}
	keys := make([][2]int, 0, len(newest))
	for k := range newest {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	if oldest == "" && len(keys) > 0 {
		k := keys[max(0, len(keys)-series)]
		oldest = fmt.Sprintf("%d.%d", k[0], k[1])
	}
	for _, k := range keys {
		name := fmt.Sprintf("%d.%d", k[0], k[1])
		if !seriesLess(name, oldest) {
			r.refs["refs/heads/maint-"+name] = newest[k]
			r.branches++
		}
	}
	return r, oldest, nil
}

// seriesBranches reads the branches of repo named after a release series
// ([v]<major>.<minor>) and the commit each stood at, at the time at.
func seriesBranches(repo string, at int64) (map[[2]int]string, error) {
	out, err := gitOut(repo, "for-each-ref", "--format=%(refname)", "refs/heads")
	if err != nil {
		return nil, err
	}
	own := map[[2]int]string{}
	for _, name := range strings.Fields(out) {
		m := seriesBranch.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		id, err := gitOut(repo, "rev-list", "-1", "--first-parent", "--before="+strconv.FormatInt(at, 10), name)
		if err != nil || id == "" {
			continue
		}
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		own[[2]int{major, minor}] = id
	}
	return own, nil
}

// seriesBranch is a release series' branch: [v]<major>.<minor>.
var seriesBranch = regexp.MustCompile(`^refs/heads/v?(\d+)\.(\d+)$`)

// seriesLess orders "major.minor" series.
func seriesLess(a, b string) bool {
	var am, an, bm, bn int
	fmt.Sscanf(a, "%d.%d", &am, &an)
	fmt.Sscanf(b, "%d.%d", &bm, &bn)
	return am < bm || am == bm && an < bn
}

// moveTo sets the upstream's refs to to's, from from's: update-ref's
// updates, creations and deletions in one transaction.
func moveTo(up string, from, to *releases) (moved, created int, err error) {
	var in strings.Builder
	for name, id := range to.refs {
		switch old, ok := from.refs[name]; {
		case !ok:
			fmt.Fprintf(&in, "create %s %s\n", name, id)
			created++
		case old != id:
			fmt.Fprintf(&in, "update %s %s\n", name, id)
			moved++
		}
	}
	for name := range from.refs {
		if _, ok := to.refs[name]; !ok {
			fmt.Fprintf(&in, "delete %s\n", name)
		}
	}
	return moved, created, run(up, strings.NewReader(in.String()), "git", "update-ref", "--stdin")
}

// packedObjects sums what the upload-packs' pack-objects wrote
// ("write_pack_file/wrote" in their trace2 events) to the file at path
// after offset, and returns the file's new end.
func packedObjects(path string, offset int64) (int, int64) {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) < offset {
		return 0, offset
	}
	n := 0
	for _, l := range strings.Split(string(b[offset:]), "\n") {
		if !strings.Contains(l, `"category":"pack-objects"`) || !strings.Contains(l, `"key":"write_pack_file/wrote"`) {
			continue
		}
		if m := regexp.MustCompile(`"value":"(\d+)"`).FindStringSubmatch(l); m != nil {
			v, _ := strconv.Atoi(m[1])
			n += v
		}
	}
	return n, int64(len(b))
}

// releaseDir is where the release rows work, under the bench's scratch.
func releaseDir(r *runner) (string, error) {
	dir := filepath.Join(r.work, "releases-bench")
	os.RemoveAll(dir)
	return dir, os.MkdirAll(dir, 0o755)
}
