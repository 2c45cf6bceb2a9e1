package upstream

import (
	"strconv"

	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
)

// scheme is one row of the table of the protocols the helper speaks: a new
// transport is one row here and the file of its transport. The row's name
// (the table's key) is also the name protocol.<name>.allow and
// GIT_ALLOW_PROTOCOL know it by.
type scheme struct {
	port int // the default port; 0: none
	// stream: the session is a byte stream (a command's or a socket's),
	// made by transport (streamDialer); else smart HTTP's requests
	// (httpDialer).
	stream    bool
	transport func(cfg repo.Config, env proc.Env, a *Address) Transport
	// check refuses what git refuses of an address of the scheme before
	// anything runs or connects (see checkEndpoint).
	check func(a *Address, addr string) error
}

// schemes are the protocols the helper speaks, by name.
var schemes = map[string]scheme{
	"file": {stream: true, check: checkLocal,
		transport: func(_ repo.Config, _ proc.Env, a *Address) Transport { return newLocal(a.Path) }},
	"ssh": {port: 22, stream: true, check: checkSSH,
		transport: func(cfg repo.Config, env proc.Env, a *Address) Transport { return newSSH(cfg, env.Getenv, a) }},
	"git": {port: daemonPort, stream: true, check: checkDaemon,
		transport: func(_ repo.Config, _ proc.Env, a *Address) Transport { return newDaemon(a) }},
	"http":  {port: 80},
	"https": {port: 443},
}

// defaultPort is the port a scheme implies, "" for none or a scheme the
// table does not hold.
func defaultPort(name string) string {
	if s := schemes[name]; s.port != 0 {
		return strconv.Itoa(s.port)
	}
	return ""
}
