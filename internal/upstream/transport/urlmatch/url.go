package urlmatch

import (
	"net/url"
	"strconv"
	"strings"
)

// URL is a URL in the normalized form git compares for http.<url>.*
// (urlmatch.c url_normalize): scheme and host lower-cased, the scheme's
// default port dropped, percent escapes of unreserved characters decoded
// and the others upper-cased, "." and ".." path segments resolved, the
// path "/" when empty. The password, query and fragment play no part.
type URL struct {
	Scheme, User, Host, Port, Path string
	HasUser                        bool
}

// Parse normalizes s, its port dropped where it is the one defaultPort
// gives for its scheme; ok is false when git would not take s for a URL.
func Parse(s string, defaultPort func(scheme string) string) (u URL, ok bool) {
	i := strings.Index(s, "://")
	if i <= 0 || !validScheme(s[:i]) {
		return u, false
	}
	u.Scheme = strings.ToLower(s[:i])
	rest := s[i+3:]
	authority, path := rest, "/"
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority, path = rest[:end], rest[end:]
	}
	if end := strings.IndexAny(path, "?#"); end >= 0 {
		path = path[:end]
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user, _, _ := strings.Cut(authority[:at], ":")
		u.User, u.HasUser = normalizeEscapes(user), true
		authority = authority[at+1:]
	}
	host, port := authority, ""
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return u, false
		}
		host, port = host[:end+1], host[end+1:]
		if port != "" && port[0] != ':' {
			return u, false
		}
		port = strings.TrimPrefix(port, ":")
	} else if c := strings.LastIndexByte(host, ':'); c >= 0 {
		host, port = host[:c], host[c+1:]
	}
	if host == "" {
		return u, false
	}
	u.Host = strings.ToLower(normalizeEscapes(host))
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 || n > 65535 || strings.HasPrefix(port, "+") {
			return u, false
		}
		if port = strconv.Itoa(n); port == defaultPort(u.Scheme) {
			port = ""
		}
	}
	u.Port = port
	if u.Path, ok = resolveDots(normalizeEscapes(path)); !ok {
		return u, false
	}
	return u, true
}

// validScheme reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func validScheme(s string) bool {
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// normalizeEscapes decodes the escapes of unreserved characters, upper-cases
// the hex digits of the others and escapes bytes a URL cannot hold as they
// are.
func normalizeEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if d := byte(v); unreserved(d) {
				b.WriteByte(d)
			} else {
				b.WriteString("%" + strings.ToUpper(s[i+1:i+3]))
			}
			i += 2
			continue
		}
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}%", c) >= 0 {
			b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0
}

// resolveDots removes "." segments and a ".." with the segment before it;
// a ".." above the root makes the URL invalid, as in git.
func resolveDots(path string) (string, bool) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var out []string
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) == 0 {
				return "", false
			}
			out = out[:len(out)-1]
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return "/" + strings.Join(out, "/"), true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Make is the normalized form of a URL given by its parts, as Parse would
// make it of the URL they spell: user "" for none, port "" for the
// scheme's own, path with any query or fragment (left out); ok is false
// where git would match no key.
func Make(scheme, user, host, port, path string) (u URL, ok bool) {
	u = URL{Scheme: scheme, Host: strings.ToLower(normalizeEscapes(host)), Port: port}
	if user != "" {
		u.User, u.HasUser = normalizeEscapes(url.User(user).String()), true
	}
	if end := strings.IndexAny(path, "?#"); end >= 0 {
		path = path[:end]
	}
	u.Path, ok = resolveDots(normalizeEscapes(path))
	return u, ok && u.Host != ""
}
