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
	flag := func(dst *bool) string {
		if !hasValue {
			*dst = true
			return "ok"
		}
		switch value {
		case "true":
			*dst = true
		case "false":
			*dst = false
		default:
			return "error invalid value '" + value + "' for " + name
		}
		return "ok"
	}
	s := &h.set
	switch name {
	case "progress":
		return flag(&s.progress)
	case "verbosity":
		n, err := strconv.Atoi(value)
		if err != nil {
			return "error invalid verbosity '" + value + "'"
		}
		s.verbosity = n
		return "ok"
	case "depth":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return "error invalid depth '" + value + "'"
		}
		s.depth = n
		return "ok"
	case "deepen-since":
		t, err := approxidate(h.ctx, value)
		if err != nil {
			return "error invalid date '" + value + "'"
		}
		s.deepenSince = t
		return "ok"
	case "deepen-not":
		// One option a ref, as many as git was given; git cannot take
		// them back (it starts another helper for the tags it follows).
		if value == "" || strings.ContainsAny(value, "\n\x00") {
			return "error invalid deepen-not " + strconv.Quote(value)
		}
		s.deepenNot = append(s.deepenNot, value)
		return "ok"
	case "deepen-relative":
		return flag(&s.deepenRel)
	case "followtags":
		return flag(&s.followTags)
	case "cloning":
		return flag(&s.cloning)
	case "check-connectivity":
		return flag(&s.checkConn)
	case "update-shallow":
		return flag(&s.updateShallow)
	case "refetch":
		return flag(&s.refetch)
	case "filter":
		// git checked and expanded the spec; a line break would end the
		// request's pkt-line early.
		if value == "" || strings.ContainsAny(value, "\n\x00") {
			return "error invalid filter-spec '" + value + "'"
		}
		s.filter = value
		return "ok"
	case "from-promisor":
		// Not among git's boolean options: it comes as "1".
		v, ok := repo.ParseBool(value)
		if !hasValue {
			v, ok = true, true
		}
		if !ok {
			return "error invalid value '" + value + "' for " + name
		}
		s.fromPromisor = v
		return "ok"
	case "object-format":
		// git up to 2.44 sends it bare, later git "true": list then names
		// the upstream's format, whichever it is.
		if !hasValue || value == "true" {
			s.objectFormat = true
			return "ok"
		}
		return "error unknown object-format option '" + value + "'"
	case "dry-run":
		return flag(&s.dryRun)
	case "force":
		return flag(&s.force)
	case "atomic":
		return flag(&s.atomic)
	case "cas":
		// --force-with-lease: "<ref>:<expected oid>"; answering unsupported
		// would make git push without the lease.
		ref, oid, ok := strings.Cut(value, ":")
		id, err := object.ParseID(oid)
		if !ok || err != nil {
			return "error invalid cas '" + value + "'"
		}
		if s.cas == nil {
			s.cas = map[string]object.ID{}
		}
		s.cas[ref] = id
		return "ok"
	}
	return "unsupported"
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
