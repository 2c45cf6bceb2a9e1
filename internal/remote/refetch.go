package remote

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// refetchChunk is how many objects one request of Refetch asks for.
const refetchChunk = 10000

// refetchRounds bounds how often Refetch asks again for what an answer
// left out: upload-pack omits a wanted blob that a wanted tree of the
// same request holds (filter tree:0 marks it seen on the tree's way), and
// sends it when asked alone.
const refetchRounds = 8

// refetchUsage is what -h prints after "usage: ".
const refetchUsage = `git-remote-durable --refetch <url> < <ids>

Fetches again, by id, the objects whose ids come on stdin (one a line)
from <url> into the repository of the current directory, into packs of
their own written durably, also where a damaged pack holds them; prints
the ids it could not get, then "pack <path>" for each pack it wrote. The
mirror runner's --verify runs it to repair.`

// repair is what a repair (Refetch) keeps over its requests. A heal then
// writes what it fetched into a pack of its own, also objects a pack holds
// (the pack's copies are damaged).
type repair struct {
	packs []string // the paths of the packs it wrote
	// linked is the type of each object that what it fetched names (a
	// tree's entries, a commit's tree and parents): askOrder orders what
	// it asks again by it.
	linked map[object.ID]object.Type
}

// Refetch is git-remote-durable --refetch <url>: the repair of what a
// verification found broken or missing. Each object comes as a heal brings
// it (heal: exactly the ids asked for, only those written, over sessions
// of their own so that one id the upstream lacks does not keep the others),
// and is written even where a pack holds it, into a pack of its own per
// request (one flush for thousands): git reads that copy where a damaged
// pack's fails. It prints, one a line, the ids it could not fetch, then
// "pack <path>" for each pack it wrote, and adds a session line to the
// statistics file, as a fetch does.
func Refetch(ctx context.Context, args []string, env proc.Env) error {
	if len(args) != 1 || args[0] == "-h" {
		return &cli.UsageError{Usage: refetchUsage}
	}
	red := &transport.Redactor{}
	h := &helper{ctx: ctx, env: env, red: red, errw: &scrubWriter{w: env.Stderr, r: red}, out: env.Stdout,
		set: defaultSettings(), brokenType: map[object.ID]object.Type{}, began: time.Now(), line: SessionStats{Op: "fetch"}, repair: &repair{}}
	var ids []object.ID
	sc := bufio.NewScanner(env.Stdin)
	for sc.Scan() {
		id, err := object.ParseID(sc.Text())
		if err != nil {
			return fmt.Errorf("not an object id: '%s'", sc.Text())
		}
		ids = append(ids, id)
	}
	err := sc.Err()
	if err == nil {
		err = h.start([]string{"origin", args[0]})
	}
	for round := 0; err == nil && len(ids) > 0 && round < refetchRounds; round++ {
		left := h.healEach(h.repair.askOrder(ids))
		if len(left) == len(ids) {
			break // nothing came: asking again would not help
		}
		ids = left
	}
	if err == nil {
		for _, id := range ids {
			fmt.Fprintln(env.Stdout, id)
		}
		for _, p := range h.repair.packs {
			fmt.Fprintln(env.Stdout, "pack "+p)
		}
	}
	h.close()
	msg, err := h.report(err)
	h.endSession(err, msg)
	return err
}

// askOrder orders ids for a request: first those the objects fetched so
// far name as blobs, then those of unknown type, then trees, then the
// rest. upload-pack walks the wants in the order they come, and its filter
// hides a wanted object behind a wanted tree that holds it when it walks
// the tree first; so ordered, what an answer left out comes in one more
// request, not in one per level of the trees that hold it.
func (rp *repair) askOrder(ids []object.ID) []object.ID {
	rank := func(id object.ID) int {
		switch t, ok := rp.linked[id]; {
		case !ok:
			return 1
		case t == object.Blob:
			return 0
		case t == object.Tree:
			return 2
		}
		return 3
	}
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(a, b object.ID) int { return rank(a) - rank(b) })
	return out
}
