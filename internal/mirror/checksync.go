package mirror

import (
	"fmt"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/sweep"
)

// checkSync says how a fetch would sync objects, packs and refs, on which
// filesystem, with which unpack limit, and whether the crash check of this
// boot ran; it returns what stands in the way of durability.
func checkSync(r *repo.Repo, env proc.Env, say func(what, format string, a ...any)) ([]string, error) {
	var problems []string
	set, err := r.Config.DurableSettings(env.Getenv)
	if err != nil {
		return nil, err
	}
	loose := set.Policy(batch.OS, r.ObjectDir).Stats()
	packs := set.PackPolicy(batch.OS, r.ObjectDir).Stats()
	say("filesystem", "%s", describeFS(loose))
	say("objects", "%s", describePath(loose))
	say("kept packs", "%s", describePath(packs))
	if set.Notice != "" {
		say("settings", "%s", set.Notice)
	}
	for _, st := range []batch.Stats{loose, packs} {
		if st.Path == batch.PathNone || st.Path == batch.PathWriteoutOnly {
			problems = append(problems, fmt.Sprintf("objects are not durable (%s)", st.Path))
			break
		}
	}
	if strings.Contains(loose.Filesystem, "fast_commit") && r.Config.SyncsRefs() {
		danger := "core.fsync syncs refs (reference) on an ext4 with fast commits: git's fsync of each ref is a fast commit, " +
			"whose recovery broke crash images (docs/durability.md); leave reference out of core.fsync here"
		problems = append(problems, danger)
		say("refs synced", "%s", danger)
	}
	if loose.Path == batch.PathNone {
		say("refs", "not synced by the helper (loose objects are not)")
	} else {
		say("refs", "HEAD, config, refs and shallow made durable as each fetch ends")
	}
	limit, err := r.Config.UnpackLimit(false)
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		say("unpack limit", "0: every fetched pack is kept")
	} else {
		say("unpack limit", "%d: fetches of fewer objects are written as loose objects, larger ones kept as packs", limit)
	}
	if rec, _ := sweep.Read(r.ObjectDir, r.Format); rec.ThisBoot() {
		say("crash check", "every loose object was checked during this boot; %d left broken", len(rec.Broken))
	} else {
		say("crash check", "the next fetch reads every loose object (none checked during this boot)")
	}
	return problems, nil
}

// describeFS says which filesystem the policy found, and why it syncs as
// it does there.
func describeFS(st batch.Stats) string {
	name := st.Filesystem
	if name == "" {
		name = "not looked at (nothing to flush)"
	}
	if st.Reason != "" {
		return strings.TrimPrefix(st.Reason, "filesystem ")
	}
	return name
}

// describePath says what a path does.
func describePath(st batch.Stats) string {
	switch st.Path {
	case batch.PathBatch:
		return "batch: a writeout of each file before its rename, one flush after the last"
	case batch.PathFallback:
		return "fallback-fsync: a full flush of each file and of each directory that received a name (batch is not sound here)"
	case batch.PathFsync:
		return "fsync: a full flush of each file and of each directory that received a name"
	case batch.PathWriteoutOnly:
		return "writeout-only: written out, never flushed (not durable)"
	}
	return "none: no sync at all (core.fsync turns it off)"
}
