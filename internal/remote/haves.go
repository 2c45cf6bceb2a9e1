package remote

import (
	"context"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// maxRecent bounds the ancestors of the ref tips sent as haves.
const maxRecent = 256

// localHaves returns what a fetch tells the upstream the repository has:
// the commits at the tips of its refs and the most recent commits reachable
// from them. go-git negotiates in a single round, so they are all sent at
// once. Only what refs reach is trusted: objects a killed fetch left behind
// are never advertised, because their closure is not known to be complete.
func localHaves(ctx context.Context) ([]plumbing.Hash, error) {
	tips, err := runGit(ctx, nil, "rev-list", "--no-walk", "--all")
	if err != nil {
		return nil, err
	}
	haves := hashes(tips)
	if len(haves) == 0 {
		return nil, nil
	}
	recent, err := runGit(ctx, nil, "rev-list", "--date-order", "--max-count="+strconv.Itoa(maxRecent), "--all")
	if err != nil {
		return nil, err
	}
	seen := make(map[plumbing.Hash]bool, len(haves))
	for _, h := range haves {
		seen[h] = true
	}
	for _, h := range hashes(recent) {
		if !seen[h] {
			seen[h] = true
			haves = append(haves, h)
		}
	}
	return haves, nil
}
