package fsck

import (
	"strings"

	"github.com/git-durable/git-durable/object"
)

// Problem is one finding.
type Problem struct {
	ID   object.ID   // the object the message is about
	Type object.Type // that object's type
	// MsgID is git's camelCase message id, e.g. "missingEmail".
	MsgID string
	// Text is the message text, e.g. "invalid format - expected 'tree' line".
	Text string
	// Severity is Error or Warn: the level git reports the message at.
	// Messages whose severity is Info are reported as Warn, as git does.
	Severity Severity
	// Detail, when not empty, is a line git prints on its own as
	// "error: <Detail>" just before this problem (the tree parser's reason
	// for a badTree, e.g. "too-short tree object").
	Detail string
}

// String renders the line git prints after "error: " or "warning: ":
// "object <hex>: <msgId>: <text>". The text is as git formats it: a
// submodule URL, say, may hold control characters.
func (p Problem) String() string {
	return "object " + p.ID.String() + ": " + p.MsgID + ": " + p.Text
}

// Stderr returns exactly what git unpack-objects (through git's error() and
// warning()) writes for p: the Detail line if any, then "error: " or
// "warning: " and String(), each passed through gitReportf.
func (p Problem) Stderr() string {
	var b strings.Builder
	if p.Detail != "" {
		b.WriteString(gitReportf("error: ", p.Detail))
	}
	prefix := "warning: "
	if p.Severity == Error {
		prefix = "error: "
	}
	b.WriteString(gitReportf(prefix, p.String()))
	return b.String()
}

// gitReportf renders a message as git's vreportf does: prefix and message
// cut to 4095 bytes (and at a NUL), control characters other than tab and
// newline turned into '?', and a newline added.
func gitReportf(prefix, msg string) string {
	b := []byte(prefix + msg)
	if z := strings.IndexByte(string(b), 0); z >= 0 {
		b = b[:z]
	}
	if len(b) > 4095 {
		b = b[:4095]
	}
	for i := len(prefix); i < len(b); i++ {
		if c := b[i]; (c < 0x20 || c == 0x7f) && c != '\t' && c != '\n' {
			b[i] = '?'
		}
	}
	return string(append(b, '\n'))
}

// reporter collects the problems of one object.
type reporter struct {
	o    *Options
	id   object.ID
	t    object.Type
	out  []Problem
	mute bool // the object is skipped: report nothing (trees still record)
}

// report files message m and says whether it counts as an error, which is
// what makes git stop checking an object early.
func (r *reporter) report(m msgID, text string) bool {
	return r.reportFor(r.id, r.t, m, text, "")
}

// reportFor files a message about another object (or with a Detail line).
func (r *reporter) reportFor(id object.ID, t object.Type, m msgID, text, detail string) bool {
	if r.mute || r.o.Skipped(id) {
		return false
	}
	s := r.o.severity(m)
	switch s {
	case Ignore:
		return false
	case Info:
		s = Warn
	}
	r.out = append(r.out, Problem{ID: id, Type: t, MsgID: m.String(), Text: text, Severity: s, Detail: detail})
	return s == Error
}
