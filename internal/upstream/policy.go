package upstream

import (
	"fmt"
	"strings"

	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
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
func checkAllowed(cfg repo.Config, env proc.Env, scheme transport.Scheme) error {
	proto := string(scheme)
	if list, ok := env.Lookup("GIT_ALLOW_PROTOCOL"); ok {
		for _, p := range strings.Split(list, ":") {
			if p == proto {
				return nil
			}
		}
		return notAllowed(proto)
	}
	policy, err := protocolPolicy(cfg, scheme)
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

// protocolPolicy is "always", "never" or "user" for scheme: its
// protocol.<name>.allow, else protocol.allow, else the scheme table's.
func protocolPolicy(cfg repo.Config, scheme transport.Scheme) (string, error) {
	for _, key := range []string{"protocol." + string(scheme) + ".allow", "protocol.allow"} {
		if e, ok := cfg.Get(key); ok {
			switch e.Value {
			case "always", "never", "user":
				return e.Value, nil
			}
			return "", fmt.Errorf("unknown value for config '%s': %s", key, e.Value)
		}
	}
	if s, ok := schemes[scheme]; ok {
		return s.policy, nil
	}
	if scheme == "ext" {
		return "never", nil // git's known-dangerous transport
	}
	return "user", nil
}

func notAllowed(proto string) error {
	return fmt.Errorf("transport '%s' not allowed", proto)
}
