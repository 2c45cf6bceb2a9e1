package mirror

import (
	"fmt"
	"strings"

	"github.com/git-durable/git-durable/internal/mend"
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
	loose, packs := set.Plan(r.ObjectDir)
	say("filesystem", "%s", loose.DescribeFS())
	say("objects", "%s", loose.Path.Describe())
	say("kept packs", "%s", packs.Path.Describe())
	if set.Notice != "" {
		say("settings", "%s", set.Notice)
	}
	for _, path := range []string{string(loose.Path), string(packs.Path)} {
		if !repo.Flushed(path) {
			problems = append(problems, fmt.Sprintf("objects are not durable (%s)", path))
			break
		}
	}
	if strings.Contains(loose.Filesystem, "fast_commit") && r.Config.SyncsRefs() {
		danger := "core.fsync syncs refs (reference) on an ext4 with fast commits: git's fsync of each ref is a fast commit, " +
			"whose recovery broke crash images (docs/durability.md); leave reference out of core.fsync here"
		problems = append(problems, danger)
		say("refs synced", "%s", danger)
	}
	if loose.Path == "none" {
		say("refs", "not synced by the helper (loose objects are not)")
	} else if mend.Reftable(r.CommonDir) {
		say("refs", "reftable: the new tables, tables.list and its directory, with HEAD, config and shallow, made durable as each fetch ends")
	} else {
		say("refs", "files: the loose refs and packed-refs git wrote, with HEAD, config and shallow, made durable as each fetch ends")
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
