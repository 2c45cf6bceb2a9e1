package mirror

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/internal/mend"
	"github.com/git-durable/git-durable/internal/quarantine"
)

// describeTidied says what the tidying before an update did (t), one
// phrase each, and where what it set aside went (q).
func describeTidied(t mend.Tidied, q *quarantine.Dir) []string {
	var did []string
	if len(t.Locks) > 0 {
		did = append(did, "set aside the stale lock "+plural(len(t.Locks), "file", "files")+" "+quoteAll(t.Locks))
	}
	if t.TornLines > 0 {
		did = append(did, fmt.Sprintf("wrote packed-refs again without its %d torn %s", t.TornLines, plural(t.TornLines, "line", "lines")))
	}
	for _, r := range t.BrokenRefs {
		did = append(did, "set aside the broken ref "+quotePath(r))
	}
	if len(t.TornTables) > 0 {
		did = append(did, "wrote reftable/tables.list again without the "+plural(len(t.TornTables), "table", "tables")+" git cannot read "+quoteAll(t.TornTables))
	}
	if t.Scratch {
		did = append(did, "set aside what a reclone stopped by a crash left beside it")
	}
	if len(did) > 0 {
		did = append(did, "kept in "+quotePath(filepath.ToSlash(filepath.Join(quarantine.Name, filepath.Base(q.Path())))))
	}
	if len(t.Held) > 0 {
		who := "a live process works in the repository"
		if len(t.Busy) > 0 {
			who = fmt.Sprintf("a live process works in the repository (pid %d)", t.Busy[0])
		}
		did = append(did, "left the lock "+plural(len(t.Held), "file", "files")+" "+quoteAll(t.Held)+": "+who)
	}
	return did
}

// quoteAll is names, each quoted as git shows a path, joined by ", ".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quotePath(n)
	}
	return strings.Join(q, ", ")
}
