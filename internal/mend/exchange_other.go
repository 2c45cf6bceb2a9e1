//go:build !linux

package mend

import "errors"

// exchange would swap the names a and b in one step; only Linux's
// renameat2 is used for it, and elsewhere a reclone is refused before it
// writes anything (canExchange).
func exchange(a, b string) error { return canExchange() }

// canExchange says that exchange does not work here.
func canExchange() error {
	return errors.New("a reclone swaps directories with Linux's renameat2 only")
}
