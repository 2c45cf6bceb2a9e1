// Command git-remote-durable is a git remote helper: git runs it for
// "durable::<url>" and "durable://host/path" (https) remotes. It fetches
// from the real upstream through go-git's transports and writes every
// received object durably (a writeout per object, one flush after the last
// rename) before it tells git the fetch is done; it pushes with git
// pack-objects and the upstream's receive-pack.
package main

import (
	"context"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/remote"
)

func main() {
	cli.HelperMain(func(ctx context.Context, args []string, env cli.Env) error {
		return remote.Run(ctx, args, env, remote.Options{})
	})
}
