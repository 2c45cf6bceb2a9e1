package remote

import (
	"fmt"
	"io"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/pack"
)

// promisor reports whether the batch's pack is a promisor remote's: git
// said so (option from-promisor: a partial clone's fetches, lazy fetches
// included), or asked for a filter, which it never does without. git's
// fetch-pack keeps such a pack whatever its size (index-pack --promisor):
// its objects, and those they name, are promised by the remote, and only
// packs carry that mark — exploded into loose objects, a filtered pack makes
// git's connectivity check fail on the objects the filter left out.
func (s *settings) promisor() bool { return s.fromPromisor || s.filter != "" }

// promisorText reads the header of the pack in and returns what git's
// fetch-pack writes into the .promisor of that pack, with the reader that
// still yields the whole pack. fetch-pack writes "<id> <name>" for each ref
// it was asked for (create_promisor_file) when it would keep the pack
// anyway: on a clone, or when the pack holds at least fetch.unpackLimit
// objects (transfer.unpackLimit; git's default 100, 0 never); else the
// .promisor is index-pack's, empty.
func (h *helper) promisorText(in io.Reader, c repo.Config) (io.Reader, string, error) {
	hdr, in, herr := pack.PeekHeader(in)
	limit, err := c.UnpackLimit(false)
	if err != nil {
		return nil, "", err
	}
	if !h.set.cloning && (herr != nil || limit == 0 || hdr.Count < limit) {
		return in, "", nil // a bad header fails in the unpacker
	}
	var text strings.Builder
	for _, s := range h.sought {
		text.WriteString(s + "\n")
	}
	return in, text.String(), nil
}

// negotiation is the fetch negotiator git's configuration (git -c
// included) names, as git reads fetch.negotiationAlgorithm: "consecutive"
// (git's default), "skipping" (the default under feature.experimental) or
// "noop", with which git's fetch sends no haves: git runs its lazy
// fetches of a partial clone so, and a "have" of a commit whose tree
// holds a wanted blob would make the upstream leave it out.
func negotiation(c repo.Config) (string, error) {
	algorithm := "consecutive"
	if exp, err := c.Bool("feature.experimental", false); err != nil {
		return "", err
	} else if exp {
		algorithm = "skipping"
	}
	e, ok := c.Get("fetch.negotiationAlgorithm")
	if !ok {
		return algorithm, nil
	}
	switch v := strings.ToLower(e.Value); v {
	case "skipping", "noop", "consecutive":
		return v, nil
	case "default":
		return algorithm, nil
	}
	return "", fmt.Errorf("unknown fetch negotiation algorithm '%s'", e.Value)
}
