package remote

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// hashes parses git's output of one object id per line (the first field
// of each line).
func hashes(out []byte) []object.ID {
	var hs []object.ID
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f, _, _ := strings.Cut(sc.Text(), " ")
		if id, err := object.ParseID(f); err == nil {
			hs = append(hs, id)
		}
	}
	return hs
}

// config returns the configuration git sees here (every scope, GIT_DIR's
// repository when there is one, git -c), read once.
func (h *helper) config() (repo.Config, error) {
	if h.cfgd {
		return h.cfg, nil
	}
	cfg, err := repo.LoadStarted(h.ctx)
	if err != nil {
		return nil, err
	}
	h.cfg, h.cfgd = cfg, true
	return cfg, nil
}

// repository returns the repository git runs the helper for.
func (h *helper) repository() (*repo.Repo, error) {
	if h.local != nil {
		return h.local, nil
	}
	r, err := h.lookRepository()
	if err == nil {
		h.local = r
	}
	return r, err
}

// lookRepository is repository for a look before git's first fetch or
// push, which is not kept: git clone makes the repository again with the
// upstream's object format once the list is read.
func (h *helper) lookRepository() (*repo.Repo, error) {
	if h.local != nil {
		return h.local, nil
	}
	cfg, err := h.config()
	if err != nil {
		return nil, err
	}
	return repo.DiscoverWith(h.ctx, cfg)
}
