package upstream

import (
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/internal/upstream/transport/http"
	"github.com/git-durable/git-durable/internal/upstream/transport/stream"
)

// scheme is one row of the table of the protocols the helper speaks: git's
// policy for it when protocol.<name>.allow and protocol.allow say nothing,
// and its transport. A new transport is one row here, a name in
// transport's scheme file and a package of its own.
type scheme struct {
	// policy is "always" (git's defaults allow http, https, git and ssh)
	// or "user" (only where the user asked directly; file).
	policy string
	// check refuses, before anything runs or connects, what the
	// transport would take for an option, given the address and the
	// string git gave.
	check func(a *transport.Address, addr string) error
	dial  func(r *Remote, cfg repo.Config) transport.Dial
}

// schemes are the protocols the helper speaks.
var schemes = map[transport.Scheme]scheme{
	transport.File:  {policy: "user", check: stream.CheckLocal, dial: dialLocal},
	transport.SSH:   {policy: "always", check: stream.CheckSSH, dial: dialSSH},
	transport.Git:   {policy: "always", check: stream.CheckDaemon, dial: dialDaemon},
	transport.HTTP:  {policy: "always", dial: dialHTTP},
	transport.HTTPS: {policy: "always", dial: dialHTTP},
}

func dialLocal(r *Remote, _ repo.Config) transport.Dial {
	return stream.Dial(stream.Local(r.addr.Path), r.addr)
}

func dialSSH(r *Remote, cfg repo.Config) transport.Dial {
	return stream.Dial(stream.SSH(cfg, r.o.Env.Getenv, r.addr), r.addr)
}

func dialDaemon(r *Remote, _ repo.Config) transport.Dial {
	return stream.Dial(stream.Daemon(r.addr), r.addr)
}

func dialHTTP(r *Remote, _ repo.Config) transport.Dial {
	return http.Dial(r.addr, http.Options{Config: r.o.Config, Env: r.o.Env, Stderr: r.o.Stderr, Redactor: r.o.Redactor, Failed: r.failed})
}
