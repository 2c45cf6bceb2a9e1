package remote

import (
	"errors"
	"regexp"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// maxHealRounds bounds how often a read of the repository is healed and
// run again: git's reads stop at the first broken object, so each round
// finds the next one, and costs one round trip.
const maxHealRounds = 8

// healReads runs git with args (in on its standard input): a read of the
// repository that a fetch makes, or that git makes after it. Where git
// fails on loose objects of the repository that are empty or corrupt —
// what a crash of a writer that did not sync leaves, and what every later
// fetch of git fails on — and session gives an upstream that serves any
// object by its id (protocol v2), those objects are fetched again and
// repaired (heal), and git runs again. It returns what the last run
// printed and its error; a failure that names no broken object, or an
// upstream that cannot heal, leaves the error as git's.
func (h *helper) healReads(session func() (*upstream.Upload, error), in []byte, args ...string) ([]byte, error) {
	for round := 0; ; round++ {
		out, err := repo.Git(h.ctx, in, args...)
		var ge *repo.GitError
		if err == nil || round == maxHealRounds || !errors.As(err, &ge) {
			return out, err
		}
		ids, berr := h.broken(ge.Stderr)
		if berr != nil || len(ids) == 0 {
			return out, err
		}
		up, serr := session()
		if serr != nil || !up.ByID() {
			return out, err
		}
		if h.healer(up, nil)(ids) != nil {
			return out, err
		}
	}
}

// hexIDs finds what may be object ids in git's messages: "loose object
// <id> (stored in …) is corrupt", "corrupt loose object '<id>'".
var hexIDs = regexp.MustCompile(`\b[0-9a-f]{40}(?:[0-9a-f]{24})?\b`)

// broken returns the ids named in msg whose only copy in the repository
// is a broken loose object: those a fetch by id can repair. An object that
// is missing, or good, is not for the helper to fetch.
func (h *helper) broken(msg string) ([]object.ID, error) {
	r, err := h.repository()
	if err != nil {
		return nil, err
	}
	var named []object.ID
	seen := map[object.ID]bool{}
	for _, s := range hexIDs.FindAllString(msg, -1) {
		id, err := object.ParseID(s)
		if err != nil || id.Size() != r.Format.Size() || seen[id] {
			continue
		}
		seen[id] = true
		named = append(named, id)
	}
	bad, err := h.unreadable(named, true)
	if err != nil {
		return nil, err
	}
	var ids []object.ID
	for _, id := range named {
		if bad[id] {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// checkArgs is git's connectivity check after a fetch (connected.c, as
// builtin/fetch.c runs it): the objects of the new tips, on its standard
// input, down to what the refs reach, each of which must be there. Its
// walk reads the commits and trees of the repository it meets: the refs'
// tips, their trees and subtrees (marked as reached), the commits the walk
// passes; one of them broken fails the fetch ("did not send all necessary
// objects").
func checkArgs(partial bool) []string {
	args := []string{"rev-list", "--objects", "--stdin"}
	if partial {
		args = append(args, "--exclude-promisor-objects")
	}
	return append(args, "--not", "--all", "--quiet", "--alternate-refs")
}

// healCheck runs git's connectivity check of tips before git does, where
// up can heal what it reads broken (see healReads), and reports whether it
// passed: a clone is then told so (connectivity-ok, see afterPack) and
// does not run it again; after a fetch git runs it whatever it is told.
// Elsewhere it leaves the check to git, whose failure is then git's own.
func (h *helper) healCheck(up *upstream.Upload, tips []object.ID) bool {
	if !up.ByID() {
		return false
	}
	r, err := h.repository()
	if err != nil {
		return false
	}
	var in []byte
	for _, id := range tips {
		in = append(in, id.String()+"\n"...)
	}
	partial := h.set.promisor() || r.Config.Has("extensions.partialclone")
	session := func() (*upstream.Upload, error) { return up, nil }
	_, err = h.healReads(session, in, checkArgs(partial)...) // else git's own check reports what is left
	return err == nil
}
