package repo

import (
	"fmt"
	"runtime"
	"strings"
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

// componentNames are the names core.fsync takes, each with the components
// it selects.
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
// platform default; positive tokens survive it. dropped reports that the
// value itself took loose objects away — "none", or a "-x" token that names
// them — as opposed to leaving them out by not naming them.
func parseComponents(s string, warn func(string)) (components int, dropped bool) {
	components, dropped, _, _ = parseComponentList(s, warn)
	return components, dropped
}

// parseComponentList is parseComponents that also returns the tokens it
// ignored (unknown components) and those it used, in their order.
func parseComponentList(s string, warn func(string)) (components int, dropped bool, unknown, known []string) {
	current := platformComponents()
	positive, negative := 0, 0
	for {
		s = strings.TrimLeft(s, ", \t\n\r")
		tok, rest, more := strings.Cut(s, ",")
		if s == "none" {
			current = 0
			dropped = true
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
				unknown = append(unknown, tok)
			} else if negated {
				known = append(known, "-"+tok)
			} else {
				known = append(known, tok)
			}
		}
		if !more {
			break
		}
		s = rest
	}
	return current&^negative | positive, dropped || negative&compLooseObject != 0, unknown, known
}

// platformComponents are the components git syncs by default on this
// platform: what core.fsync's tokens add to and take from.
func platformComponents() int {
	if runtime.GOOS == "windows" {
		return compDefault | compLooseObject
	}
	return compDefault
}
