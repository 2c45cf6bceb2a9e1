// Command git-unpack-durable is a drop-in for git unpack-objects: git runs
// it for "git unpack-durable". It explodes a pack stream on stdin into
// loose objects of the current repository, with git's flags, messages and
// exit codes, and makes every object durable (writeout before rename, one
// flush after the last rename) before it exits (internal/unpackcmd).
//
// go install names a binary after its directory: git finds "git
// unpack-durable" only as git-unpack-durable, and a binary called unpack
// would be nothing git runs, with a generic name on the user's PATH.
package main

import (
	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/unpackcmd"
)

func main() { cli.Main(unpackcmd.Run) }
