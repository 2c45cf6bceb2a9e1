package crashtest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// OrderReport summarizes a trace checked for I-order.
type OrderReport struct {
	Objects    int    // renames into final object names
	Writeouts  int    // successful sync_file_range WAIT_BEFORE|WRITE|WAIT_AFTER
	Flushes    int    // successful fsync/fdatasync
	LastRename string // the final name renamed last
	Flushed    string // what the one flush synced
	// Later counts the flushes after the batch's one (CheckSessionOrder):
	// those of the helper's session end, which makes what git wrote after
	// the fetch durable.
	Later int
}

// CheckOrder checks the batch scheme's I-order on strace calls: every
// rename (or link) into a final object name comes after a completed
// writeout-only sync of its data, and exactly one full flush (of the object
// renamed last, or of its directory: the full journal commit that the
// policy asks for on ext4 with fast commits) comes after the last such
// rename.
func CheckOrder(calls []Call) (OrderReport, error) { return checkOrder(calls, IsObject, false) }

// CheckSessionOrder is CheckOrder for a remote helper's session: after the
// batch's one flush, which must come as CheckOrder says, it counts the
// flushes that follow (Later) instead of refusing them; no object may be
// renamed after the batch's flush.
func CheckSessionOrder(calls []Call) (OrderReport, error) { return checkOrder(calls, IsObject, true) }

// packFile matches the final name of a pack's files.
var packFile = regexp.MustCompile(`/objects/pack/pack-([0-9a-f]{40}|[0-9a-f]{64})\.(pack|idx|rev|keep|promisor)$`)

// CheckPackOrder checks the same I-order for a kept pack: every file of the
// pack (.keep, .promisor, .pack, .rev, .idx) renamed into place after a completed
// writeout of its data, the .idx — which makes the pack visible — renamed
// last, and exactly one full flush, of the .idx (or its directory), after
// it.
func CheckPackOrder(calls []Call) (OrderReport, error) {
	rep, err := checkOrder(calls, packFile.MatchString, false)
	if err == nil && !strings.HasSuffix(rep.LastRename, ".idx") {
		err = fmt.Errorf("%s was renamed after the .idx", rep.LastRename)
	}
	return rep, err
}

func checkOrder(calls []Call, isFinal func(string) bool, later bool) (OrderReport, error) {
	var rep OrderReport
	wroteOut := map[string]int{} // tmp path → completion line of its writeout
	lastRenameEnd := -1
	cwd := cwds{}
	for _, c := range calls {
		cwd.see(c)
		if !c.OK() {
			continue
		}
		switch c.Name {
		case "sync_file_range":
			if len(c.Args) == 4 && strings.Contains(c.Args[3], "WAIT_BEFORE") && strings.Contains(c.Args[3], "SYNC_FILE_RANGE_WRITE") && strings.Contains(c.Args[3], "WAIT_AFTER") {
				wroteOut[FdPath(c.Args[0])] = c.End
				rep.Writeouts++
			}
		case "rename", "renameat", "renameat2", "link", "linkat":
			from, to := renameArgs(c, cwd[c.Pid])
			if done, ok := wroteOut[from]; ok {
				wroteOut[to] = done // the name carries its data's writeout
			}
			if !isFinal(to) {
				continue
			}
			done, ok := wroteOut[from]
			if !ok || done >= c.Start {
				return rep, fmt.Errorf("line %d: %s renamed to %s without a completed writeout before", c.Start+1, from, filepath.Base(to))
			}
			if rep.Flushes > 0 {
				return rep, fmt.Errorf("line %d: %s to %s after the flush", c.Start+1, c.Name, to)
			}
			rep.Objects++
			rep.LastRename, lastRenameEnd = to, c.End
		case "fsync", "fdatasync":
			if later && rep.Flushes == 1 {
				rep.Later++
				continue
			}
			rep.Flushes++
			rep.Flushed = FdPath(c.Args[0])
			if c.Start <= lastRenameEnd {
				return rep, fmt.Errorf("line %d: flush before the last rename completed", c.Start+1)
			}
		}
	}
	switch {
	case rep.Objects == 0:
		return rep, fmt.Errorf("no object was renamed into place")
	case rep.Flushes != 1:
		return rep, fmt.Errorf("%d full flushes, want exactly 1", rep.Flushes)
	case rep.Flushed != rep.LastRename && rep.Flushed != filepath.Dir(rep.LastRename):
		return rep, fmt.Errorf("the flush synced %s, but %s was renamed last", rep.Flushed, rep.LastRename)
	}
	return rep, nil
}

// renameArgs returns the old and new path of a rename or link call; cwd
// resolves the relative paths of rename and link.
func renameArgs(c Call, cwd string) (string, string) {
	if c.Name == "rename" || c.Name == "link" {
		return atPath("AT_FDCWD<"+cwd+">", c.Args[0]), atPath("AT_FDCWD<"+cwd+">", c.Args[1])
	}
	return atPath(c.Args[0], c.Args[1]), atPath(c.Args[2], c.Args[3])
}

// atPath resolves a *at() path argument against its directory fd.
func atPath(dirfd, p string) string {
	p = StrArg(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(FdPath(dirfd), p)
}
