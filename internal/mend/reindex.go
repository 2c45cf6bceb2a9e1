package mend

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/git-durable/git-durable/internal/unpack"
)

// reindex makes the index of the pack at path again from the pack, as git
// index-pack does, beside the index there (if any): the store's one way of
// publishing a pack keeps each file the same byte for byte and replaces
// the others (the damaged index), keeping them in the quarantine. Nothing
// is removed before the new index is durable, so that where the pack is
// damaged too — no index then says which objects it held — the pack is as
// readable as before.
func (m *mender) reindex(path string) (string, error) {
	src, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer src.Close()
	run := m.t.Begin()
	defer run.End()
	res, err := unpack.Run(m.ctx, src, m.t.Store, run.Policy, run.Options(io.Discard, &unpack.Keep{}))
	if err != nil {
		return "", fmt.Errorf("its index is unusable, and the pack is damaged too (%v): no index says which objects it held; both are left as they are", err)
	}
	if name := "pack-" + res.Pack + ".pack"; name != filepath.Base(path) {
		// The pack was another's under this name: the one just published
		// holds all of it.
		if err := m.retirePack(path); err != nil {
			return "", err
		}
	}
	return "made the index of " + filepath.Base(path) + " again", nil
}
