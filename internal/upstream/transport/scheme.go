package transport

import (
	"strconv"
	"strings"
)

// Scheme is one of the protocols the helper speaks, by the name git's
// URLs, protocol.<name>.allow and GIT_ALLOW_PROTOCOL know it by. This file
// is the only place that spells their names.
type Scheme string

// The schemes the helper speaks.
const (
	File  Scheme = "file"  // a repository on this machine: git upload-pack run on its path
	SSH   Scheme = "ssh"   // the user's ssh command
	Git   Scheme = "git"   // a git daemon over TCP
	HTTP  Scheme = "http"  // smart HTTP
	HTTPS Scheme = "https" // smart HTTP over TLS
)

// DaemonPort is git daemon's port.
const DaemonPort = 9418

// ports are the schemes the helper speaks, each with its default port
// (0: none).
var ports = map[Scheme]int{File: 0, SSH: 22, Git: DaemonPort, HTTP: 80, HTTPS: 443}

// schemeOf is the scheme a URL names, lower-cased, and whether the helper
// speaks it.
func schemeOf(name string) (Scheme, bool) {
	s := Scheme(strings.ToLower(name))
	_, ok := ports[s]
	return s, ok
}

// Port is the scheme's default port, 0 for none.
func (s Scheme) Port() int { return ports[s] }

// Web reports whether the scheme is smart HTTP's (with or without TLS).
func (s Scheme) Web() bool { return s == HTTP || s == HTTPS }

// DefaultPort is the port a URL of the scheme name implies, "" for none or
// a scheme the helper does not speak.
func DefaultPort(name string) string {
	if s, _ := schemeOf(name); s.Port() != 0 {
		return strconv.Itoa(s.Port())
	}
	return ""
}

// durable is the helper's own URL form: "durable://host/path" is https.
const durable = "durable://"
