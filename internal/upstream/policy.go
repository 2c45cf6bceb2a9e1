package upstream

import (
	"fmt"
	"strings"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
)

// git checks its protocol policy against the helper's own name ("durable")
// only; the URL inside durable:: is the helper's to check. These checks are
// git's transport.c and connect.c ones, applied before any connection.

// checkAllowed applies git's protocol policy to the endpoint's protocol:
// GIT_ALLOW_PROTOCOL, when set, is the whole allow list; otherwise
// protocol.<name>.allow, else protocol.allow, else git's defaults (http,
// https, git and ssh always; anything else, file included, only when the
// user asked directly: GIT_PROTOCOL_FROM_USER unset or true, which git sets
// to 0 for submodules).
func checkAllowed(cfg repo.Config, env proc.Env, proto string) error {
	if list, ok := env.Lookup("GIT_ALLOW_PROTOCOL"); ok {
		for _, p := range strings.Split(list, ":") {
			if p == proto {
				return nil
			}
		}
		return notAllowed(proto)
	}
	policy, err := protocolPolicy(cfg, proto)
	if err != nil {
		return err
	}
	switch policy {
	case "always":
		return nil
	case "never":
		return notAllowed(proto)
	}
	fromUser := true
	if v, ok := env.Lookup("GIT_PROTOCOL_FROM_USER"); ok {
		b, valid := repo.ParseBool(v)
		if !valid {
			return fmt.Errorf("bad boolean environment value '%s' for 'GIT_PROTOCOL_FROM_USER'", v)
		}
		fromUser = b
	}
	if !fromUser {
		return notAllowed(proto)
	}
	return nil
}

// protocolPolicy is "always", "never" or "user" for proto.
func protocolPolicy(cfg repo.Config, proto string) (string, error) {
	for _, key := range []string{"protocol." + proto + ".allow", "protocol.allow"} {
		if e, ok := cfg.Get(key); ok {
			switch e.Value {
			case "always", "never", "user":
				return e.Value, nil
			}
			return "", fmt.Errorf("unknown value for config '%s': %s", key, e.Value)
		}
	}
	switch proto {
	case "http", "https", "git", "ssh":
		return "always", nil
	case "ext":
		return "never", nil
	}
	return "user", nil
}

func notAllowed(proto string) error {
	return fmt.Errorf("transport '%s' not allowed", proto)
}

// checkEndpoint refuses an address that could turn into an option of the
// program that carries the transfer, or into a second line of a request,
// with git's words: a control character anywhere, then what the scheme's
// own check refuses (a ssh user or host beginning with '-' would be read by
// ssh as an option, -oProxyCommand=… runs a command, as would a path
// handed to git-upload-pack or to the remote shell).
func checkEndpoint(addr string, a *Address) error {
	if i := strings.IndexFunc(addr, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return fmt.Errorf("refusing a URL with a control character: '%s'", mask.Printable(Anonymize(addr)))
	}
	if check := schemes[a.Scheme].check; check != nil {
		return check(a, addr)
	}
	return nil
}

// checkSSH refuses a user, host or path that ssh would take for an option.
func checkSSH(a *Address, _ string) error {
	host := a.Host
	if a.User != "" {
		host = a.User + "@" + host
	}
	if looksLikeOption(a.User) || looksLikeOption(a.Host) {
		return fmt.Errorf("strange hostname '%s' blocked", host)
	}
	if looksLikeOption(a.Path) {
		return fmt.Errorf("strange pathname '%s' blocked", a.Path)
	}
	return nil
}

// checkLocal refuses a path that git upload-pack would take for an option.
func checkLocal(a *Address, _ string) error {
	if looksLikeOption(a.Path) {
		return fmt.Errorf("strange pathname '%s' blocked", a.Path)
	}
	return nil
}

// checkDaemon refuses a host that looks like an option and what
// daemonTarget refuses, and keeps the host and path a request names.
func checkDaemon(a *Address, addr string) error {
	if looksLikeOption(a.Host) {
		return fmt.Errorf("strange hostname '%s' blocked", a.Host)
	}
	var err error
	a.daemonHost, a.daemonPath, err = daemonTarget(addr)
	return err
}

// looksLikeOption is git's looks_like_command_line_option.
func looksLikeOption(s string) bool { return strings.HasPrefix(s, "-") }
