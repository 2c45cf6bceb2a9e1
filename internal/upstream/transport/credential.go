package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/repo"
)

// The credential protocol is line based: git credential reads key=value
// lines up to a blank one, and so do the helpers it runs, some of which
// (written in other languages) also end a line at a carriage return. A
// value holding such a character adds a line of its own: a user
// "x\nhost=victim.example" asks the credential helper for another host's
// password, which then goes to the server. So every URL the helper asks
// credentials for is checked first as git's credential_from_url checks it
// (checkCredentialURL), and every request to git credential is written by
// credentialInput, which refuses such values: no value can add a line.

// credentialAttr is one key=value line of the credential protocol.
type credentialAttr struct{ key, value string }

// credentialKeys are the keys the helper ever writes: url and username to
// ask (git credential fill splits the URL itself, and applies
// credential.useHttpPath), and what git credential fill answers, handed
// back to approve or reject (git 2.41's expiry and refresh token too).
var credentialKeys = map[string]bool{
	"url": true, "protocol": true, "host": true, "path": true, "username": true, "password": true,
	"password_expiry_utc": true, "oauth_refresh_token": true,
}

// credentialInput is the input of git credential for attrs: one key=value
// line each, then the blank line that ends the request. A key it does not
// know, or a value with a newline, a carriage return or a NUL, is refused.
func credentialInput(attrs []credentialAttr) ([]byte, error) {
	var b strings.Builder
	for _, a := range attrs {
		if !credentialKeys[a.key] {
			return nil, fmt.Errorf("unknown credential key '%s'", mask.Printable(a.key))
		}
		if i := strings.IndexAny(a.value, "\n\r\x00"); i >= 0 {
			return nil, fmt.Errorf("credential value for %s contains %s", a.key, breakName(a.value[i]))
		}
		b.WriteString(a.key + "=" + a.value + "\n")
	}
	b.WriteString("\n")
	return []byte(b.String()), nil
}

// breakName names a character that ends a line, as git's messages do.
func breakName(c byte) string {
	switch c {
	case '\n':
		return "newline"
	case '\r':
		return "carriage return"
	}
	return "NUL"
}

// fillRequest is what git credential fill is asked for the address: its
// URL without credentials, and the user when one is known.
func fillRequest(a *Address, user string) ([]byte, error) {
	attrs := []credentialAttr{{"url", a.CredentialURL()}}
	if user != "" {
		attrs = append(attrs, credentialAttr{"username", user})
	}
	return credentialInput(attrs)
}

// Credential is what git credential fill answered.
type Credential struct {
	User, Password string
	attrs          []credentialAttr // to hand back to approve or reject
}

// parseCredential reads the answer of git credential fill. Only the keys
// credentialInput writes are kept for approve and reject.
func parseCredential(out []byte) *Credential {
	c := &Credential{}
	for _, l := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok || !credentialKeys[k] || k == "url" {
			continue
		}
		c.attrs = append(c.attrs, credentialAttr{k, v})
		switch k {
		case "username":
			c.User = v
		case "password":
			c.Password = v
		}
	}
	return c
}

// Credentials is git's credential protocol for one upstream: git
// credential fill asked for what a server wants (the user's credential
// helpers, or a prompt on the terminal, as for git itself), then told
// whether it worked (approve, reject). Every password it gets goes to
// Redactor; a failure to tell is a warning on Stderr.
type Credentials struct {
	Redactor *Redactor
	Stderr   io.Writer
}

// Fill asks git credential fill for the credentials of a's URL (user
// already known, if any).
func (cs *Credentials) Fill(ctx context.Context, a *Address, user string) (*Credential, error) {
	in, err := fillRequest(a, user)
	if err != nil {
		return nil, err
	}
	out, err := repo.Git(ctx, in, "credential", "fill")
	if err != nil {
		var ge *repo.GitError
		if errors.As(err, &ge) {
			// git's own "could not read Username for …" line
			msg := strings.TrimSpace(ge.Stderr)
			if i := strings.LastIndex(msg, "\n"); i >= 0 {
				msg = msg[i+1:]
			}
			return nil, errors.New(strings.TrimPrefix(msg, "fatal: "))
		}
		return nil, err
	}
	c := parseCredential(out)
	cs.Redactor.Add(c.Password)
	if c.Password == "" {
		return nil, ErrAuthFailed
	}
	return c, nil
}

// Approve tells git credential that c worked; a failure only loses the
// cache update, as in git.
func (cs *Credentials) Approve(ctx context.Context, c *Credential) { cs.tell(ctx, "approve", c) }

// Reject tells git credential that c did not work.
func (cs *Credentials) Reject(ctx context.Context, c *Credential) { cs.tell(ctx, "reject", c) }

// tell runs git credential verb with c, even once ctx has ended.
func (cs *Credentials) tell(ctx context.Context, verb string, c *Credential) {
	in, err := credentialInput(c.attrs)
	if err == nil {
		_, err = repo.Git(context.WithoutCancel(ctx), in, "credential", verb)
	}
	if err != nil {
		fmt.Fprintf(cs.Stderr, "warning: git credential %s failed\n", verb)
	}
}

// CredentialURL is the address's URL without credentials, which git
// credential splits into protocol, host and (with useHttpPath) path.
func (a *Address) CredentialURL() string {
	u := a.Origin()
	u.Path = a.Path
	return u.String()
}

// Origin is the address's scheme, host and port as a URL.
func (a *Address) Origin() *url.URL {
	u := &url.URL{Scheme: string(a.Scheme), Host: a.Host}
	if a.Port != 0 {
		u.Host = fmt.Sprintf("%s:%d", a.Host, a.Port)
	}
	return u
}

// CredentialURLError is git's refusal of a URL it cannot ask credentials
// for: one of its parts decodes to a character that would end a line.
type CredentialURLError struct {
	url       string // as shown: without credentials
	component string // username, password, protocol, host or path
	char      byte
}

func (e *CredentialURLError) Error() string {
	return "credential url cannot be parsed: " + e.url
}

// Warning is the line git prints before that fatal one.
func (e *CredentialURLError) Warning() string {
	return fmt.Sprintf("url contains a %s in its %s component: %s", breakName(e.char), e.component, e.url)
}

// checkCredentialURL splits an http(s) URL as git's credential_from_url
// does (the user, and the password after its first ':', before the first
// '@' of the part that the first '/', '?' or '#' ends; the host; the path
// with the query), decodes every part and refuses one that holds a
// newline, as git does, or a carriage return or NUL: git 2.39 refuses a
// carriage return only once it writes the value to a credential helper,
// and never decodes "%00", which Go's net/url does. Every part is
// decoded whole, where git leaves what comes before a ':' in a host or
// path as it is, so this catches every escape of the URL.
func CheckCredentialURL(raw string) error {
	scheme, host, path, ok := splitURL(raw)
	if !ok {
		return nil
	}
	var parts []credentialAttr
	if at := strings.IndexByte(host, '@'); at >= 0 {
		user, pass, hasPass := strings.Cut(host[:at], ":")
		parts = append(parts, credentialAttr{"username", user})
		if hasPass {
			parts = append(parts, credentialAttr{"password", pass})
		}
		host = host[at+1:]
	}
	parts = append(parts, credentialAttr{"protocol", scheme}, credentialAttr{"host", host}, credentialAttr{"path", path})
	for _, p := range parts {
		v := URLDecode(p.value, true)
		if i := strings.IndexAny(v, "\n\r\x00"); i >= 0 {
			return &CredentialURLError{url: mask.Printable(Anonymize(raw)), component: p.key, char: v[i]}
		}
	}
	return nil
}
