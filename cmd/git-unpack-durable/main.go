// Command git-unpack-durable is a drop-in for git unpack-objects with
// durable writes (see package cmd/unpack): git runs it for
// "git unpack-durable".
package main

import (
	"github.com/git-durable/git-durable/cmd/unpack"
	"github.com/git-durable/git-durable/internal/cli"
)

func main() { cli.Main(unpack.Run) }
