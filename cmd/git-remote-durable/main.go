// Command git-remote-durable is a git remote helper: git runs it for
// "durable::<url>" and "durable://host/path" (https) remotes. It fetches
// from the real upstream through go-git's transports and writes every
// received object durably (a writeout per object, one flush after the last
// rename) before it tells git the fetch is done; it pushes with git
// pack-objects and the upstream's receive-pack.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/remote"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := remote.Run(ctx, os.Args[1:], cli.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		IsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
	}, remote.Options{})
	stop()
	os.Exit(cli.Exit(err, os.Stdout, os.Stderr))
}
