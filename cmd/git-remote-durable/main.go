// Command git-remote-durable is a git remote helper: git runs it for
// "durable::<url>" and "durable://host/path" (https) remotes. It fetches
// from the real upstream over git's protocols (its own sessions, go-git's
// codecs) and writes every received object durably (a writeout per
// object, one flush after the last rename) before it tells git the fetch
// is done; it pushes with git pack-objects and the upstream's
// receive-pack. Run by an operator as git-remote-durable --update-mirrors
// <dir>…, it updates a tree of mirrors; as git-remote-durable --check
// [<dir>], it says what a fetch there would do (internal/mirror).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/mirror"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/remote"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case mirror.Flag:
			cli.Main(func(ctx context.Context, args []string, env proc.Env) error {
				return mirror.Run(ctx, args[1:], env)
			})
		case mirror.VerifyFlag:
			cli.Main(func(ctx context.Context, args []string, env proc.Env) error {
				return mirror.Run(ctx, args, env)
			})
		case mirror.CheckFlag:
			cli.Main(func(ctx context.Context, args []string, env proc.Env) error {
				return mirror.Check(ctx, args[1:], env)
			})
		case "--help":
			// Asked for, as git --help: on stdout, exit 0 (-h: stderr, 129).
			cli.Main(func(_ context.Context, _ []string, env proc.Env) error {
				_, err := fmt.Fprintf(env.Stdout, "usage: %s\n", remote.Usage)
				return err
			})
		}
	}
	cli.HelperMain(func(ctx context.Context, args []string, env proc.Env) error {
		return remote.Run(ctx, args, env, remote.Options{})
	})
}
