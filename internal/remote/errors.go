package remote

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/unpack"
)

// describe turns a failure into the one line printed after "fatal: ", in
// git's words where git has some, naming the upstream without credentials
// and with every known secret removed.
func (h *helper) describe(err error) string {
	if te := h.cut.last(); te != nil {
		// go-git does not always wrap a read error it passes on.
		return h.red.scrub(te.describe(h.url))
	}
	return h.red.scrub(describe(err, h.url))
}

func describe(err error, url string) string {
	var (
		ge *repo.GitError
		ne *net.OpError
		el *pktline.ErrorLine
		cv *tls.CertificateVerificationError
		se *unpack.StrictError
	)
	if errors.As(err, &se) {
		return se.Msg // git's index-pack words; see errorLines
	}
	if msg, ok := describeHTTP(err, url); ok {
		return msg // before the pack: a read of the pack cut short
	}
	if pe, ok := isPackError(err); ok {
		lines, _ := unpack.Describe(pe.err)
		if unpack.Local(pe.err) {
			// Nothing was wrong with the pack: git's words for a full
			// disk, a read-only filesystem, a permission, an interrupt;
			// its error() lines come first (see errorLines).
			return lines[len(lines)-1].Text
		}
		return fmt.Sprintf("bad pack from '%s': %s", url, joinText(lines))
	}
	if re, ok := asRedirect(err); ok {
		// git's words: curl did not follow, the redirect is an error status.
		if re.initial {
			return fmt.Sprintf("unable to access '%s': %s", url, re)
		}
		return fmt.Sprintf("RPC failed; HTTP %d: %s", re.code, re)
	}
	if he, ok := asStatus(err); ok {
		// curl's words for the status, as git prints them.
		msg := fmt.Sprintf("The requested URL returned error: %d", he.StatusCode())
		if he.Response.Request != nil && he.Response.Request.Method == http.MethodPost {
			return fmt.Sprintf("RPC failed; HTTP %d: %s", he.StatusCode(), msg)
		}
		return fmt.Sprintf("unable to access '%s': %s", url, msg)
	}
	switch {
	case errors.Is(err, errAuthFailed), errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Sprintf("Authentication failed for '%s'", url)
	case errors.Is(err, transport.ErrAuthenticationRequired):
		return fmt.Sprintf("Authentication failed for '%s' (no credentials)", url)
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Sprintf("repository '%s' not found", url)
	case errors.As(err, &cv):
		return fmt.Sprintf("unable to access '%s': SSL certificate problem: %s", url, oneLine(cv.Err.Error()))
	case errors.As(err, &ne):
		return fmt.Sprintf("unable to access '%s': %s", url, netReason(ne))
	case errors.As(err, &el):
		return fmt.Sprintf("remote error: %s", strings.TrimSpace(el.Text))
	case errors.As(err, &ge):
		msg := strings.TrimSpace(ge.Stderr)
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		if msg == "" {
			return ge.Error()
		}
		return strings.TrimPrefix(msg, "fatal: ")
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "unexpected error: "); ok {
		return "remote error: " + strings.TrimSpace(rest) // side-band channel 3
	}
	return oneLine(msg)
}

// netReason is the system's word for a failed connection.
func netReason(ne *net.OpError) string {
	if ne.Err != nil {
		return oneLine(ne.Err.Error())
	}
	return oneLine(ne.Error())
}

// oneLine keeps a message on one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// joinText is the texts of lines on one line.
func joinText(lines []unpack.Message) string {
	text := make([]string, len(lines))
	for i, l := range lines {
		text[i] = l.Text
	}
	return strings.Join(text, ": ")
}

// errorLines are the lines git prints with error() before the fatal line:
// of an fsck refusal (the reason a commit or tag does not parse; the
// checks' own findings are printed as they are made), or of a local
// failure to write what was received ("insufficient permission for
// adding an object to repository database ./objects").
func errorLines(err error) []string {
	var se *unpack.StrictError
	if errors.As(err, &se) {
		return se.Lines
	}
	pe, ok := isPackError(err)
	if !ok || !unpack.Local(pe.err) {
		return nil
	}
	var out []string
	lines, _ := unpack.Describe(pe.err)
	for _, l := range lines[:len(lines)-1] {
		out = append(out, l.Text)
	}
	return out
}
