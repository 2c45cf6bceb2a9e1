package remote

import (
	"io"

	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/repo"
)

// objects returns the session's object store, that of r, opened on first
// use and closed as the session ends (close). The settings are read as
// the helper reads them, and said once a session (snapshot). A store
// opened for a look at the repository before git's first fetch (see
// lookRepository) is kept where it is r's objects directory in r's object
// format, and opened again where git made the repository anew (a clone
// in the upstream's object format).
func (h *helper) objects(r *repo.Repo) (*objstore.Session, error) {
	if t := h.store; t != nil && t.Repo.ObjectDir == r.ObjectDir && t.Repo.Format == r.Format {
		return t, nil
	}
	t, err := objstore.Open(r, h.env.Getenv, io.Discard, true)
	if err != nil {
		return nil, err
	}
	if h.store != nil {
		h.store.Close()
	}
	h.store = t
	return t, nil
}

// begin begins a run of writes into the session's object store, that of
// r (objects): an unpack, a heal's copy, a shallow file, the settle. The
// caller ends it (Run.End) once it has its stats.
func (h *helper) begin(r *repo.Repo) (*objstore.Run, error) {
	t, err := h.objects(r)
	if err != nil {
		return nil, err
	}
	return t.Begin(), nil
}
