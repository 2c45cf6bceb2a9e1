package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// describe turns a failure into the one line printed after "fatal: ", in
// git's words where git has some, naming the upstream without credentials
// and with every known secret removed.
func (h *helper) describe(err error) string {
	if msg, ok := h.remote.Failure(); ok {
		// A decoder does not always wrap a read error it passes on.
		return h.red.Scrub(msg)
	}
	return h.red.Scrub(describe(err, h.url))
}

func describe(err error, url string) string {
	var (
		ge *repo.GitError
		se *unpack.StrictError
	)
	if errors.As(err, &se) {
		return se.Msg // git's index-pack words; see errorLines
	}
	if msg, ok := transport.Describe(err, url); ok {
		// Before the pack's: a connection cut (CutError, "early EOF"),
		// or a request curl would have failed, under a read of the pack.
		return msg
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
	if errors.As(err, &ge) {
		msg := strings.TrimSpace(ge.Stderr)
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		if msg == "" {
			return ge.Error()
		}
		return strings.TrimPrefix(msg, "fatal: ")
	}
	if msg, ok := upstream.RemoteError(err); ok {
		return msg // side-band channel 3
	}
	return mask.OneLine(err.Error())
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

// report prints what git prints for a failure of the session and returns
// the fatal line's text ("" when there is none) and the error Run returns.
func (h *helper) report(err error) (string, error) {
	if err == nil {
		return "", nil
	}
	if context.Cause(h.ctx) == errGitGone {
		fmt.Fprintf(h.errw, "fatal: %s\n", errGitGone)
		return errGitGone.Error(), &cli.ExitError{Code: 128}
	}
	if h.ctx.Err() != nil {
		// Interrupted: whatever failed (a read from a connection the
		// cancellation closed, say) failed because of it.
		return "interrupted", h.ctx.Err()
	}
	var ue *cli.UsageError
	if errors.Is(err, context.Canceled) || errors.As(err, &ue) {
		return "interrupted", err
	}
	if h.local != nil {
		if hint := objstore.NoSpaceHint(err, h.local.ObjectDir); hint != "" {
			fmt.Fprintf(h.errw, "hint: %s\n", hint)
		}
	}
	for _, l := range errorLines(err) {
		fmt.Fprintf(h.errw, "error: %s\n", mask.Printable(l))
	}
	if errors.As(err, new(*upstream.CutError)) {
		// git's words, before its "early EOF": the connection went away
		// in the middle of the pack, which was not bad.
		fmt.Fprintf(h.errw, "fetch-pack: unexpected disconnect while reading sideband packet from '%s'\n", h.url)
	}
	var ce *transport.CredentialURLError
	if errors.As(err, &ce) {
		fmt.Fprintf(h.errw, "warning: %s\n", ce.Warning())
	}
	msg := mask.Printable(mask.OneLine(h.describe(err)))
	fmt.Fprintf(h.errw, "fatal: %s\n", msg)
	return msg, &cli.ExitError{Code: 128}
}
