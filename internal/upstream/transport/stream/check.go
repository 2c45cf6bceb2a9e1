package stream

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// The refusals of an address before anything runs or connects, each
// scheme's own: what the program that carries the transfer would take for
// an option (a ssh user or host beginning with '-' would be read by ssh as
// one), or what would end a git:// request's line.

// CheckSSH refuses a user, host or path that ssh would take for an
// option: -oProxyCommand=… runs a command, as would a path handed to the
// remote shell.
func CheckSSH(a *transport.Address, _ string) error {
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

// CheckLocal refuses a path that git upload-pack would take for an
// option.
func CheckLocal(a *transport.Address, _ string) error {
	if looksLikeOption(a.Path) {
		return fmt.Errorf("strange pathname '%s' blocked", a.Path)
	}
	return nil
}

// CheckDaemon refuses a host that looks like an option and what
// daemonTarget refuses of the address git gave (addr), and keeps the host
// and path a request names in a.
func CheckDaemon(a *transport.Address, addr string) error {
	if looksLikeOption(a.Host) {
		return fmt.Errorf("strange hostname '%s' blocked", a.Host)
	}
	var err error
	a.DaemonHost, a.DaemonPath, err = daemonTarget(addr)
	return err
}

// looksLikeOption is git's looks_like_command_line_option.
func looksLikeOption(s string) bool { return strings.HasPrefix(s, "-") }

// daemonTarget is the host and path git's connect.c puts in the request
// for a git:// address: the address decoded whole as git's url_decode does
// it (net/url also decodes "%00", which git leaves as it is: a NUL would
// end the path and start another "host=" for the daemon), the host and
// port as the address spells them (without a user), the path from the '/'
// after them, "/~user/…" without its '/'. A newline in either would end
// the request line, and git refuses it.
func daemonTarget(addr string) (host, path string, err error) {
	_, rest, _ := strings.Cut(transport.URLDecode(addr, false), "://")
	start, end := 0, 0 // connect.c host_end: an IPv6 address's ':' and '/' are not the path's
	if i := strings.Index(rest, "@["); i >= 0 {
		start = i + 1
	}
	if strings.HasPrefix(rest[start:], "[") {
		if j := strings.IndexByte(rest[start:], ']'); j >= 0 {
			end = start + j + 1
		}
	}
	slash := strings.IndexByte(rest[end:], '/')
	if slash < 0 {
		return "", "", errors.New("no path specified; see 'git help pull' for valid url syntax")
	}
	host, path = rest[:end+slash], rest[end+slash:]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if strings.HasPrefix(path, "/~") {
		path = path[1:]
	}
	if strings.ContainsRune(host+path, '\n') {
		return "", "", errors.New("newline is forbidden in git:// hosts and repo paths")
	}
	return host, path, nil
}
