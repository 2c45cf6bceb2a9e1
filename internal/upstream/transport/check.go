package transport

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/internal/mask"
)

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
	switch a.Scheme {
	case SSH:
		return checkSSH(a)
	case File:
		return checkLocal(a)
	case Git:
		return checkDaemon(a, addr)
	}
	return nil
}

// checkSSH refuses a user, host or path that ssh would take for an option.
func checkSSH(a *Address) error {
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
func checkLocal(a *Address) error {
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
	_, rest, _ := strings.Cut(urlDecode(addr, false), "://")
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

// urlDecode decodes the percent escapes of s as git's url_decode does: a
// "%" without two hex digits after it stays as it is, and so does "%00",
// which git never decodes (a C string cannot hold a NUL) — unless nul is
// set, to see s as Go's net/url decodes it.
func urlDecode(s string, nul bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			if v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8); v != 0 || nul {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
