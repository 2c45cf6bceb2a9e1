// Command git-unpack-durable is a drop-in for git unpack-objects: it
// explodes a pack stream on stdin into loose objects of the current
// repository, with git's flags, messages and exit codes, and makes every
// object durable (writeout before rename, one flush after the last rename)
// before it exits.
package main

import (
	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/unpackcmd"
)

func main() { cli.Main(unpackcmd.Run) }
