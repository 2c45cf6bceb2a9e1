package repo

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/git-durable/git-durable/batch"
)

// Fsync components, as git's enum fsync_component.
const (
	compLooseObject = 1 << iota
	compPack
	compPackMetadata
	compCommitGraph
	compIndex
	compReference
	compObjectMap

	compObjects   = compLooseObject | compPack
	compDerived   = compPackMetadata | compCommitGraph
	compCommitted = compObjects | compReference
	compAdded     = compCommitted | compIndex
	compAll       = compAdded | compDerived | compObjectMap
	compDefault   = compPack | compPackMetadata | compCommitGraph
)

var componentNames = []struct {
	name string
	bits int
}{
	{"loose-object", compLooseObject},
	{"pack", compPack},
	{"pack-metadata", compPackMetadata},
	{"commit-graph", compCommitGraph},
	{"index", compIndex},
	{"objects", compObjects},
	{"reference", compReference},
	{"derived-metadata", compDerived},
	{"committed", compCommitted},
	{"added", compAdded},
	{"all", compAll},
}

// parseComponents is git's parse_fsync_components: tokens separated by ','
// (leading blanks skipped), each selecting every component whose name starts
// with it, "-x" removing, "none" (as the last token only) clearing the
// platform default; positive tokens survive it.
func parseComponents(s string, warn func(string)) int {
	current := platformComponents()
	positive, negative := 0, 0
	for {
		s = strings.TrimLeft(s, ", \t\n\r")
		tok, rest, more := strings.Cut(s, ",")
		if s == "none" {
			current = 0
		} else {
			negated := strings.HasPrefix(tok, "-")
			if negated {
				tok = tok[1:]
				if tok == "" {
					warn("invalid value for variable core.fsync")
				}
			}
			if tok == "" {
				break
			}
			found := false
			for _, n := range componentNames {
				if strings.HasPrefix(n.name, tok) {
					found = true
					if negated {
						negative |= n.bits
					} else {
						positive |= n.bits
					}
				}
			}
			if !found {
				warn(fmt.Sprintf("ignoring unknown core.fsync component '%s'", tok))
			}
		}
		if !more {
			break
		}
		s = rest
	}
	return current&^negative | positive
}

func platformComponents() int {
	if runtime.GOOS == "windows" {
		return compDefault | compLooseObject
	}
	return compDefault
}

func platformMethod() string {
	switch runtime.GOOS {
	case "darwin":
		return "writeout-only"
	case "windows":
		return "batch"
	}
	return "fsync"
}

// fsyncMethod resolves how loose objects are synced. With none of
// core.fsync, core.fsyncMethod and core.fsyncObjectFiles set it is Batch,
// this project's default; otherwise it is what git would do.
func (c Config) fsyncMethod(warn func(string)) (batch.Method, error) {
	if !c.Has("core.fsync") && !c.Has("core.fsyncMethod") && !c.Has("core.fsyncObjectFiles") {
		return batch.Batch, nil
	}
	components := compDefault
	if e, ok := c.Get("core.fsync"); ok {
		components = parseComponents(e.Value, warn)
	}
	method := platformMethod()
	if e, ok := c.Get("core.fsyncMethod"); ok {
		switch e.Value {
		case "fsync", "writeout-only", "batch":
			method = e.Value
		default:
			warn(fmt.Sprintf("ignoring unknown core.fsyncMethod value '%s'", e.Value))
		}
	}
	objectFiles := false
	if c.Has("core.fsyncObjectFiles") {
		warn("core.fsyncObjectFiles is deprecated; use core.fsync instead")
		var err error
		if objectFiles, err = c.Bool("core.fsyncObjectFiles", false); err != nil {
			return batch.None, err
		}
	}
	// close_loose_object: the batch path needs the component and the
	// method; otherwise fsyncObjectFiles or the component sync each object
	// with the method, where batch means a full flush.
	switch {
	case components&compLooseObject != 0 && method == "batch":
		return batch.Batch, nil
	case objectFiles || components&compLooseObject != 0:
		if method == "writeout-only" {
			return batch.WriteoutOnly, nil
		}
		return batch.Fsync, nil
	}
	return batch.None, nil
}
