// Package mirror is the mirror runner every operator writes, shipped:
// git-remote-durable --update-mirrors updates a tree of mirrors with git
// remote update --prune, each under a lock of its own, with a time limit,
// a bounded number at once, one log line each, and a non-zero exit if any
// failed. Before each update it puts right what a crash during an earlier
// one can leave in a mirror that no fetch heals, because git fails on it
// before it starts the helper: lock files no process holds any more, an
// empty or half-written loose ref, a torn packed-refs, a ref whose object
// is gone (repair.go). The refs it removes are a mirror's copies of the
// upstream's: the update fetches them again.
package mirror
