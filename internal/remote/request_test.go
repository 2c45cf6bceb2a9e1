package remote

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
)

// TestUploadRequest checks what the helper asks of a git server: everything
// that makes the transfer small (thin-pack, ofs-delta, side-band-64k,
// multi_ack_detailed), include-tag and no-progress as git's options say,
// and the shallow lines and deepening.
func TestUploadRequest(t *testing.T) {
	adv := capability.NewList()
	adv.Decode([]byte("multi_ack thin-pack side-band side-band-64k ofs-delta shallow deepen-since deepen-not no-progress include-tag multi_ack_detailed agent=git/2.39.5"))
	h := &helper{ctx: context.Background(), set: defaultSettings(), url: "u"}
	want := []plumbing.Hash{plumbing.NewHash(strings.Repeat("1", 40))}
	caps := func(req *packp.UploadPackRequest) string { return req.Capabilities.String() }

	req, err := h.uploadRequest(adv, want, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"multi_ack_detailed", "side-band-64k", "thin-pack", "ofs-delta", "no-progress"} {
		if !strings.Contains(caps(req), c) {
			t.Errorf("request lacks %s: %s", c, caps(req))
		}
	}
	if strings.Contains(caps(req), "include-tag") || strings.Contains(caps(req), " side-band ") {
		t.Errorf("request: %s", caps(req))
	}

	h.set.progress, h.set.followTags, h.set.depth = true, true, 3
	shallow := []plumbing.Hash{plumbing.NewHash(strings.Repeat("2", 40))}
	req, err = h.uploadRequest(adv, want, nil, shallow)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(caps(req), "include-tag") || strings.Contains(caps(req), "no-progress") || !strings.Contains(caps(req), "shallow") {
		t.Errorf("request: %s", caps(req))
	}
	if req.Depth != packp.DepthCommits(3) || len(req.Shallows) != 1 || strings.Contains(caps(req), "deepen-relative") {
		t.Errorf("depth %v, shallows %v, %s", req.Depth, req.Shallows, caps(req))
	}
	h.set.deepenRel = true
	if req, err = h.uploadRequest(adv, want, nil, shallow); err == nil {
		t.Error("deepen-relative without the upstream's support")
	}
	adv.Set(capability.DeepenRelative)
	if req, err = h.uploadRequest(adv, want, nil, shallow); err != nil || !strings.Contains(caps(req), "deepen-relative") {
		t.Errorf("deepen-relative: %v %v", req, err)
	}
	h.set.deepenRel = false

	h.set.depth, h.set.deepenSince = 0, time.Unix(1700000000, 0)
	if req, err = h.uploadRequest(adv, want, nil, nil); err != nil || req.Depth != packp.DepthSince(time.Unix(1700000000, 0)) {
		t.Errorf("deepen-since: %v, %v", req.Depth, err)
	}
	// A server without shallow support cannot serve a shallow repository.
	plain := capability.NewList()
	plain.Decode([]byte("ofs-delta side-band-64k"))
	if _, err := h.uploadRequest(plain, want, nil, shallow); err == nil || !strings.Contains(err.Error(), "does not support shallow") {
		t.Errorf("no shallow support: %v", err)
	}
}
