package main

import (
	"fmt"
	"strings"
)

// rowGroups are the groups of rows -rows chooses from: each holds ours
// and what it is compared with, so that every ratio of a group can be
// taken when the group alone is measured (a real history's full set of
// rows takes an hour on a slow disk).
var rowGroups = map[string][]string{
	"explode":   {"ours none", "git none"},
	"batch":     {"ours batch", "ours none + sync -f"},
	"git-batch": {"git batch"}, // issue 11's comparison: minutes a round
	"keep":      {"ours keep", "git index-pack"},
	"clone":     nil, // the mirror clones through git daemon
	"fetch":     nil, // the incremental mirror fetch
	"partial":   nil, // the mirror clone --filter=blob:none
	"mirror":    nil, // -mirror's rows: alone, the real history's own are left out
	"releases":  nil, // -releases' rows: alone (or with mirror), likewise
}

// allRows is -rows' default.
const allRows = "explode,batch,git-batch,keep,clone,fetch,partial"

// parseRows parses the value of -rows.
func parseRows(s string) (map[string]bool, error) {
	rows := map[string]bool{}
	for _, g := range strings.Split(s, ",") {
		g = strings.TrimSpace(g)
		if _, ok := rowGroups[g]; !ok {
			return nil, fmt.Errorf("-rows: no group %q (the groups: %s)", g, allRows)
		}
		rows[g] = true
	}
	return rows, nil
}

// pick returns the variants of vs in the groups of rows.
func pick(vs []variant, rows map[string]bool) []variant {
	var out []variant
	for _, v := range vs {
		for g, names := range rowGroups {
			for _, n := range names {
				if n == v.name && rows[g] {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// ratio is the ratio of the median wall times of rows a and b, and
// whether both were measured.
func ratio(st map[string]stats, a, b string) (float64, bool) {
	x, okA := st[a]
	y, okB := st[b]
	if !okA || !okB || y.wall == 0 {
		return 0, false
	}
	return x.wall / y.wall, true
}
