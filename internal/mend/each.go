package mend

import (
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// maxRequests bounds the requests Each makes.
const maxRequests = 16

// rounds bounds how often Rounds asks again for what an answer left out:
// upload-pack omits a wanted blob that a wanted tree of the same request
// holds (filter tree:0 marks it seen on the tree's way), and sends it when
// asked alone.
const rounds = 8

// hexIDs finds what may be object ids in git's messages ("not our ref
// <id>", "loose object <id> (stored in …) is corrupt").
var hexIDs = regexp.MustCompile(`\b[0-9a-f]{40}(?:[0-9a-f]{24})?\b`)

// Each fetches ids again on sessions of their own (open opens one; a nil
// session is an empty upstream) and returns those it could not get.
// upload-pack refuses a whole request for one id it does not have ("not
// our ref <id>"): that id is left out, and the request made again without
// it, so that one object the upstream lost does not keep the others
// broken. A session that cannot be opened (an *OpenError), or a refusal
// for another reason, ends it; the error is returned with what is left.
func (f *Fetcher) Each(open func() (*upstream.Upload, error), ids []object.ID) (left []object.ID, err error) {
	want := append([]object.ID(nil), ids...)
	for range maxRequests {
		if len(want) == 0 {
			break
		}
		up, oerr := open()
		if oerr != nil || up == nil {
			if oerr == nil {
				oerr = fmt.Errorf("'%s' is empty now", f.URL)
			}
			return append(left, want...), &OpenError{oerr}
		}
		still, herr := f.Heal(up, want)
		up.Close()
		if herr == nil {
			return append(left, still...), nil
		}
		if errors.Is(herr, errOverBudget) {
			return append(left, want...), herr
		}
		refused := map[object.ID]bool{}
		for _, s := range hexIDs.FindAllString(f.describe(herr), -1) {
			if id, perr := object.ParseID(s); perr == nil {
				refused[id] = true
			}
		}
		var next []object.ID
		for _, id := range want {
			if refused[id] {
				left = append(left, id)
			} else {
				next = append(next, id)
			}
		}
		if len(next) == len(want) {
			return append(left, want...), herr // refused for another reason
		}
		want = next
	}
	return append(left, want...), nil
}

// OpenError is a session with the upstream that could not be opened.
type OpenError struct{ Err error }

func (e *OpenError) Error() string { return e.Err.Error() }

func (e *OpenError) Unwrap() error { return e.Err }

// Rounds is Each asked again, in the order askOrder gives, for what each
// round's answers left out, as long as a round brings something and at
// most rounds times; it returns what none brought.
func (f *Fetcher) Rounds(open func() (*upstream.Upload, error), ids []object.ID) ([]object.ID, error) {
	for range rounds {
		if len(ids) == 0 {
			return nil, nil
		}
		left, err := f.Each(open, f.askOrder(ids))
		if err != nil || len(left) == len(ids) {
			return left, err // nothing came: asking again would not help
		}
		ids = left
	}
	return ids, nil
}

// describe is f.Describe(err), or err's own text.
func (f *Fetcher) describe(err error) string {
	if f.Describe != nil {
		return f.Describe(err)
	}
	return err.Error()
}

// askOrder orders ids for a request: first those the objects fetched so
// far name as blobs, then those of unknown type, then trees, then the
// rest. upload-pack walks the wants in the order they come, and its filter
// hides a wanted object behind a wanted tree that holds it when it walks
// the tree first; so ordered, what an answer left out comes in one more
// request, not in one per level of the trees that hold it.
func (f *Fetcher) askOrder(ids []object.ID) []object.ID {
	rank := func(id object.ID) int {
		switch t, ok := f.linked[id]; {
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
