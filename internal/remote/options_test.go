package remote

import (
	"context"
	"testing"
	"time"
)

func TestOption(t *testing.T) {
	sealed(t, "")
	h := &helper{ctx: context.Background(), set: defaultSettings()}
	for _, tc := range []struct{ in, want string }{
		{"progress true", "ok"},
		{"progress", "ok"}, // bare means true
		{"progress maybe", "error invalid value 'maybe' for progress"},
		{"verbosity 0", "ok"},
		{"verbosity x", "error invalid verbosity 'x'"},
		{"depth 1", "ok"},
		{"depth -1", "error invalid depth '-1'"},
		{"deepen-since 1700000000", "ok"},
		{`deepen-since "2023-11-14 22:13:20 +0000"`, "ok"},
		{"followtags true", "ok"},
		{"cloning true", "ok"},
		{"check-connectivity true", "ok"},
		{"update-shallow true", "ok"},
		{"object-format", "ok"},
		{"object-format true", "ok"},
		{"object-format sha256", "error unknown object-format option 'sha256'"},
		{"dry-run true", "ok"},
		{"force true", "ok"},
		{"atomic true", "ok"},
		{"cas refs/heads/main:" + "0123456789012345678901234567890123456789", "ok"},
		{"cas refs/heads/main", "error invalid cas 'refs/heads/main'"},
		{"deepen-not main", "ok"},
		{`deepen-not "refs/tags/v1\tx"`, "ok"}, // quoted as git quotes it
		{`deepen-not "a\nb"`, `error invalid deepen-not "a\nb"`},
		{"deepen-not", `error invalid deepen-not ""`},
		{"deepen-relative true", "ok"},
		{"filter blob:none", "ok"},
		{"from-promisor 1", "ok"},
		{"family ipv4", "unsupported"},
		{"pushcert true", "unsupported"},
		{"push-option x", "unsupported"},
	} {
		if got := h.option(tc.in); got != tc.want {
			t.Errorf("option %s = %q, want %q", tc.in, got, tc.want)
		}
	}
	s := h.set
	if !s.progress || s.verbosity != 0 || s.depth != 1 || !s.deepenRel || !s.followTags || !s.cloning || !s.checkConn ||
		!s.updateShallow || !s.objectFormat || !s.dryRun || !s.force || !s.atomic || len(s.cas) != 1 {
		t.Errorf("settings: %+v", s)
	}
	if len(s.deepenNot) != 2 || s.deepenNot[0] != "main" || s.deepenNot[1] != "refs/tags/v1\tx" || !s.deepen() {
		t.Errorf("deepen-not = %q", s.deepenNot)
	}
	if !s.deepenSince.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("deepen-since = %v", s.deepenSince)
	}
}
