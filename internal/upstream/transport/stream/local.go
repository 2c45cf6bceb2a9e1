package stream

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/internal/proc"
)

// Local returns the connector for a repository on this machine: git
// upload-pack or receive-pack run on its path, without the variables that
// describe the local repository (git's local_repo_env), with GIT_PROTOCOL
// for a protocol version, as git runs them; the end of the context stops
// them.
func Local(path string) Connector {
	return &commandTransport{command: func(ctx context.Context, service string, version int) (*exec.Cmd, error) {
		cmd := command(ctx, "git", strings.TrimPrefix(service, "git-"), path)
		cmd.Env = proc.WithoutRepoEnv(os.Environ())
		if version > 0 {
			cmd.Env = append(cmd.Env, protocolEnv(version))
		}
		return cmd, nil
	}}
}

// protocolEnv is the variable that asks git's upload-pack (and
// receive-pack) for a protocol version.
func protocolEnv(version int) string {
	return "GIT_PROTOCOL=version=" + strconv.Itoa(version)
}
