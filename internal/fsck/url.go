package fsck

import "strings"

// This file holds git's checks of submodule names and URLs
// (check_submodule_name, check_submodule_url and the url.c and
// credential.c helpers they use).

func isXplatformDirSep(c byte) bool { return c == '/' || c == '\\' }

// badSubmoduleName reports whether git refuses a submodule name: it is empty
// or has ".." as a path component ('/' or '\' separated).
func badSubmoduleName(name string) bool {
	if name == "" {
		return true
	}
	s := cbuf(name)
	dotdotAt := func(i int) bool {
		return s.at(i) == '.' && s.at(i+1) == '.' && (s.at(i+2) == 0 || isXplatformDirSep(s.at(i+2)))
	}
	if dotdotAt(0) {
		return true
	}
	for i := 0; i < len(name); i++ {
		if isXplatformDirSep(name[i]) && dotdotAt(i+1) {
			return true
		}
	}
	return false
}

func startsWithDotSlash(s string) bool {
	return len(s) >= 2 && s[0] == '.' && isXplatformDirSep(s[1])
}

func startsWithDotDotSlash(s string) bool {
	return len(s) >= 3 && s[0] == '.' && s[1] == '.' && isXplatformDirSep(s[2])
}

// urlDecode decodes %XX escapes as git's url_decode does: the part before
// the first ':' (the scheme) is kept as it is, and decoding stops at NUL.
func urlDecode(s string) string {
	var out strings.Builder
	if colon := strings.IndexByte(s, ':'); colon > 0 {
		out.WriteString(s[:colon])
		s = s[colon:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0 {
			break
		}
		if c == '%' && i+2 < len(s) {
			hi, lo := hexVal(s[i+1]), hexVal(s[i+2])
			if hi >= 0 && lo >= 0 && hi<<4|lo > 0 {
				out.WriteByte(byte(hi<<4 | lo))
				i += 2
				continue
			}
		}
		out.WriteByte(c)
	}
	return out.String()
}

// curlURL returns the URL git-remote-curl would get for url, if url is one
// of the transports it implements.
func curlURL(url string) (string, bool) {
	for _, p := range []string{"http::", "https::", "ftp::", "ftps::"} {
		if strings.HasPrefix(url, p) {
			return url[len(p):], true
		}
	}
	for _, p := range []string{"http://", "https://", "ftp://", "ftps://"} {
		if strings.HasPrefix(url, p) {
			return url, true
		}
	}
	return "", false
}

// credentialURLBad reports whether git's credential_from_url_gently fails
// for url or leaves the host empty: no scheme, or a newline in any
// url-decoded component.
func credentialURLBad(url string) bool {
	protoEnd := strings.Index(url, "://")
	if protoEnd <= 0 {
		return true
	}
	cp := url[protoEnd+3:]
	slash := strings.IndexAny(cp, "/?#")
	if slash < 0 {
		slash = len(cp)
	}
	at := strings.IndexByte(cp, '@')
	colon := strings.IndexByte(cp, ':')
	var parts []string
	host := cp[:slash]
	if at >= 0 && at < slash {
		if colon < 0 || at <= colon {
			parts = append(parts, urlDecode(cp[:at]))
		} else {
			parts = append(parts, urlDecode(cp[:colon]), urlDecode(cp[colon+1:at]))
		}
		host = cp[at+1 : slash]
	}
	decodedHost := urlDecode(host)
	parts = append(parts, url[:protoEnd], decodedHost)
	path := strings.TrimLeft(cp[slash:], "/")
	if path != "" {
		parts = append(parts, urlDecode(path))
	}
	for _, p := range parts {
		if strings.IndexByte(p, '\n') >= 0 {
			return true
		}
	}
	return decodedHost == ""
}

// badSubmoduleURL reports whether git 2.39 refuses a submodule URL: one
// that looks like an option, a relative or git:// URL holding an encoded
// newline or climbing with "../" into a scheme or host, or a curl URL whose
// credential parsing fails or yields no host.
func badSubmoduleURL(url string) bool {
	if strings.HasPrefix(url, "-") {
		return true
	}
	if startsWithDotSlash(url) || startsWithDotDotSlash(url) || strings.HasPrefix(url, "git://") {
		if strings.IndexByte(urlDecode(url), '\n') >= 0 {
			return true
		}
		next, dotdots := url, 0
		for {
			if startsWithDotDotSlash(next) {
				dotdots++
				next = next[3:]
			} else if startsWithDotSlash(next) {
				next = next[2:]
			} else {
				break
			}
		}
		return dotdots > 0 && next != "" && (next[0] == ':' || next[0] == '/')
	}
	if cu, ok := curlURL(url); ok {
		return credentialURLBad(cu)
	}
	return false
}
