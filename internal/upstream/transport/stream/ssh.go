package stream

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// SSH returns the ssh connector: the user's ssh command run the way git
// runs it (GIT_SSH_COMMAND, else core.sshCommand, both through the shell
// when they need one; else GIT_SSH, run directly; else ssh), so that
// ProxyCommand, keys, agents and known_hosts behave as for git. go-git's
// own ssh client ignores all of these. The end of the context stops the
// command.
func SSH(cfg repo.Config, getenv func(string) string, ep *transport.Address) Connector {
	prog, shell := "ssh", false
	if v := getenv("GIT_SSH_COMMAND"); v != "" {
		prog, shell = v, true
	} else if e, ok := cfg.Get("core.sshCommand"); ok && e.Value != "" {
		prog, shell = e.Value, true
	} else if v := getenv("GIT_SSH"); v != "" {
		prog = v
	}
	variant := getenv("GIT_SSH_VARIANT")
	if variant == "" {
		if e, ok := cfg.Get("ssh.variant"); ok {
			variant = e.Value
		}
	}
	if variant == "" || variant == "auto" {
		variant = sshVariant(prog, shell)
	}
	return &commandTransport{command: func(ctx context.Context, service string, version int) (*exec.Cmd, error) {
		args, err := sshArgs(variant, ep, service, version)
		if err != nil {
			return nil, err
		}
		var cmd *exec.Cmd
		if shell && strings.ContainsAny(prog, shellMeta) {
			cmd = command(ctx, "sh", append([]string{"-c", shellLine(prog), prog}, args...)...)
		} else {
			cmd = command(ctx, prog, args...)
		}
		if variant == "ssh" && version > 0 {
			cmd.Env = append(os.Environ(), protocolEnv(version))
		}
		return cmd, nil
	}}
}

// shellMeta are the characters for which git runs a command line through
// the shell (run-command.c prepare_shell_cmd); one without them names a
// program, run directly.
const shellMeta = "|&;<>()$`\\\"' \t\n*?[#~=%"

// shellLine is the script sh -c runs for the command line prog, its
// arguments following: git's `prog "$@"`, with exec in front when prog is
// one simple command — no operator, redirection, grouping or substitution,
// and a first word that names a program — which changes nothing but that
// the shell's process becomes ssh's, so that stopping the helper's child
// stops ssh: dash, Debian's sh, does not exec a last command itself, and
// an ssh left behind the shell holds the connection until the upstream
// next writes.
func shellLine(prog string) string {
	first, _, _ := strings.Cut(strings.TrimLeft(prog, " \t"), " ")
	simple := !strings.ContainsAny(prog, "|&;<>(){}`\n") && first != "" &&
		strings.Trim(first, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+~:@%-") == ""
	if simple {
		return "exec " + prog + ` "$@"`
	}
	return prog + ` "$@"`
}

// sshVariant guesses the kind of ssh from the program's name, as git does;
// anything unknown is taken to be OpenSSH-compatible.
func sshVariant(prog string, shell bool) string {
	name := prog
	if shell {
		name, _, _ = strings.Cut(strings.TrimSpace(prog), " ")
	}
	name = strings.TrimSuffix(strings.ToLower(filepath.Base(name)), ".exe")
	switch name {
	case "plink", "putty":
		return "plink"
	case "tortoiseplink":
		return "tortoiseplink"
	}
	return "ssh"
}

// sshArgs are the arguments git gives its ssh command (connect.c
// push_ssh_options): for OpenSSH asked for a protocol version, "-o
// SendEnv=GIT_PROTOCOL" (an sshd that does not accept the variable gives
// the server none, and it answers v0); the port option the variant
// understands, the [user@]host, and the remote command with the
// repository path single-quoted.
func sshArgs(variant string, ep *transport.Address, service string, version int) ([]string, error) {
	var args []string
	if variant == "ssh" && version > 0 {
		args = append(args, "-o", "SendEnv=GIT_PROTOCOL")
	}
	if ep.Port != 0 && ep.Port != transport.SSH.Port() {
		switch variant {
		case "ssh":
			args = append(args, "-p", strconv.Itoa(ep.Port))
		case "plink", "putty":
			args = append(args, "-P", strconv.Itoa(ep.Port))
		case "tortoiseplink":
			args = append(args, "-batch", "-P", strconv.Itoa(ep.Port))
		default:
			return nil, fmt.Errorf("ssh variant '%s' does not support setting port", variant)
		}
	} else if variant == "tortoiseplink" {
		args = append(args, "-batch")
	}
	host := ep.Host
	if ep.User != "" {
		host = ep.User + "@" + host
	}
	return append(args, host, service+" "+sq(ep.Path)), nil
}

// sq single-quotes s for the remote shell, as git's sq_quote_buf does.
func sq(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, "'", `'\''`), "!", `'\!'`) + "'"
}
