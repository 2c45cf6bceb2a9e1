// Command git-unpack-durable is a drop-in for git unpack-objects: it
// explodes a pack stream on stdin into loose objects of the current
// repository, with git's flags, messages and exit codes, and makes every
// object durable (writeout before rename, one flush after the last rename)
// before it exits.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/git-durable/git-durable/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Unpack(ctx, os.Args[1:], cli.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		IsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
	})
	stop()
	os.Exit(cli.Exit(err, os.Stdout, os.Stderr))
}
