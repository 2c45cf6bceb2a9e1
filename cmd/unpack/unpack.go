// Package unpack is the command git-unpack-durable, a drop-in for git
// unpack-objects: it explodes a pack stream on stdin into loose objects of
// the current repository, with git's flags, messages and exit codes, and
// makes every object durable (writeout before rename, one flush after the
// last rename) before it exits.
//
// Its main package is cmd/git-unpack-durable, because go install names a
// binary after its directory: git finds "git unpack-durable" only as
// git-unpack-durable, and a binary called unpack would be nothing git
// runs, with a generic name on the user's PATH.
package unpack

import (
	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/unpackcmd"
)

// Main runs git-unpack-durable as a program; it does not return.
func Main() { cli.Main(unpackcmd.Run) }
