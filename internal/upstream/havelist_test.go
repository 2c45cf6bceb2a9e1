package upstream

import "github.com/git-durable/git-durable/object"

// haveList is a Negotiator of a list of haves, given in its order, for
// the tests.
type haveList []object.ID

// Next returns the next n haves of the list.
func (l *haveList) Next(n int) []object.ID {
	n = min(n, len(*l))
	next := (*l)[:n:n]
	*l = (*l)[n:]
	return next
}

// Ack does nothing: the list is sent whole.
func (l *haveList) Ack(object.ID) {}
