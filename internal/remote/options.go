package remote

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// settings are what git said with "option" commands.
type settings struct {
	progress      bool
	verbosity     int  // 1 by default, 0 with -q, 2 and up with -v
	depth         int  // 0: no deepening
	deepenRel     bool // depth counts from the shallow boundary (--deepen)
	deepenSince   time.Time
	deepenNot     []string // refs whose history is left out (--shallow-exclude)
	followTags    bool
	cloning       bool
	checkConn     bool
	updateShallow bool
	refetch       bool   // send no haves: everything again (git fetch --refetch)
	filter        string // a partial clone's filter spec, as git expanded it
	fromPromisor  bool   // the upstream is a promisor remote of the repository
	objectFormat  bool   // git wants ":object-format" in list
	dryRun        bool
	force         bool
	atomic        bool
	cas           map[string]object.ID // ref → the value it must have
}

func defaultSettings() settings { return settings{verbosity: 1} }

// deepen reports whether git asked to deepen (or make) a shallow history:
// its fetch-pack's args->deepen.
func (s *settings) deepen() bool {
	return s.depth > 0 || !s.deepenSince.IsZero() || len(s.deepenNot) > 0
}

// option answers "option <name> <value>" with "ok", "unsupported" or
// "error <why>". A bare "option <name>" means true, as for remote-curl.
func (h *helper) option(arg string) string {
	name, value, hasValue := strings.Cut(arg, " ")
	if strings.HasPrefix(value, `"`) {
		if v, err := strconv.Unquote(value); err == nil {
			value = v
		}
	}
	if field, ok := boolOptions[name]; ok {
		return setFlag(field(&h.set), name, value, hasValue)
	}
	if why, ok := h.valueOption(name, value, hasValue); ok {
		if why != "" {
			return "error " + why
		}
		return "ok"
	}
	return "unsupported"
}

// boolOptions are the options that take "true", "false" or nothing (true).
var boolOptions = map[string]func(*settings) *bool{
	"progress":           func(s *settings) *bool { return &s.progress },
	"deepen-relative":    func(s *settings) *bool { return &s.deepenRel },
	"followtags":         func(s *settings) *bool { return &s.followTags },
	"cloning":            func(s *settings) *bool { return &s.cloning },
	"check-connectivity": func(s *settings) *bool { return &s.checkConn },
	"update-shallow":     func(s *settings) *bool { return &s.updateShallow },
	"refetch":            func(s *settings) *bool { return &s.refetch },
	"dry-run":            func(s *settings) *bool { return &s.dryRun },
	"force":              func(s *settings) *bool { return &s.force },
	"atomic":             func(s *settings) *bool { return &s.atomic },
}

// setFlag sets a boolean option as git's remote helpers read one.
func setFlag(dst *bool, name, value string, hasValue bool) string {
	switch {
	case !hasValue || value == "true":
		*dst = true
	case value == "false":
		*dst = false
	default:
		return "error invalid value '" + value + "' for " + name
	}
	return "ok"
}

// valueOption sets one of the options that carry a value. ok is false for
// a name it does not know; why is what is wrong with the value, or "".
func (h *helper) valueOption(name, value string, hasValue bool) (why string, ok bool) {
	s := &h.set
	switch name {
	case "verbosity":
		n, err := strconv.Atoi(value)
		if err != nil {
			return "invalid verbosity '" + value + "'", true
		}
		s.verbosity = n
	case "depth":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return "invalid depth '" + value + "'", true
		}
		s.depth = n
	case "deepen-since":
		t, err := approxidate(h.ctx, value)
		if err != nil {
			return "invalid date '" + value + "'", true
		}
		s.deepenSince = t
	case "deepen-not":
		// One option a ref, as many as git was given; git cannot take
		// them back (it starts another helper for the tags it follows).
		if value == "" || strings.ContainsAny(value, "\n\x00") {
			return "invalid deepen-not " + strconv.Quote(value), true
		}
		s.deepenNot = append(s.deepenNot, value)
	case "filter":
		// git checked and expanded the spec; a line break would end the
		// request's pkt-line early.
		if value == "" || strings.ContainsAny(value, "\n\x00") {
			return "invalid filter-spec '" + value + "'", true
		}
		s.filter = value
	case "from-promisor":
		// Not among git's boolean options: it comes as "1".
		v, ok := repo.ParseBool(value)
		if !hasValue {
			v, ok = true, true
		}
		if !ok {
			return "invalid value '" + value + "' for " + name, true
		}
		s.fromPromisor = v
	case "object-format":
		// git up to 2.44 sends it bare, later git "true": list then names
		// the upstream's format, whichever it is.
		if hasValue && value != "true" {
			return "unknown object-format option '" + value + "'", true
		}
		s.objectFormat = true
	case "cas":
		return s.setCAS(value), true
	default:
		return "", false
	}
	return "", true
}

// setCAS takes one --force-with-lease: "<ref>:<expected oid>"; answering
// unsupported would make git push without the lease.
func (s *settings) setCAS(value string) string {
	ref, oid, ok := strings.Cut(value, ":")
	id, err := object.ParseID(oid)
	if !ok || err != nil {
		return "invalid cas '" + value + "'"
	}
	if s.cas == nil {
		s.cas = map[string]object.ID{}
	}
	s.cas[ref] = id
	return ""
}

// approxidate reads a date the way git does for --shallow-since, by asking
// git (git rev-parse --since=<date> prints --max-age=<unix time>).
func approxidate(ctx context.Context, date string) (time.Time, error) {
	out, err := repo.Git(ctx, nil, "rev-parse", "--since="+date)
	if err != nil {
		return time.Time{}, err
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "--max-age=")
	if !ok {
		return time.Time{}, strconv.ErrSyntax
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(n, 0), nil
}
