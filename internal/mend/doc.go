// Package mend is the one home of repair: what the mirror runner puts
// right in a repository before an update (Tidy: what a crash left that git
// fails on before it starts the helper), and what a verification found
// broken (Mend: find what is broken, fetch it again by id, write the good
// copies, retire the damaged ones). The rule of both: nothing git can
// still read is removed or made unreadable. A replacement is written and
// made durable first; what it replaces is set aside in the repository's
// quarantine (internal/quarantine), never deleted, and only byte-identical
// copies and the package's own temporary files are removed outright. A
// ref is never deleted: a ref whose object is missing is fetched again by
// id, or left for the update's fetch, which wants it back.
package mend
