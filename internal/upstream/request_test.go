package upstream

import (
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/object"
)

// TestUploadRequest checks what the helper asks of a git server: everything
// that makes the transfer small (thin-pack, ofs-delta, side-band-64k,
// multi_ack_detailed), include-tag and no-progress as git's options say,
// and the shallow lines and deepening.
func TestUploadRequest(t *testing.T) {
	adv := &capability.List{}
	capability.DecodeList([]byte("multi_ack thin-pack side-band side-band-64k ofs-delta shallow deepen-since deepen-not no-progress include-tag multi_ack_detailed agent=git/2.39.5"), adv)
	want, _ := object.ParseID(strings.Repeat("1", 40))
	f := &FetchRequest{Wants: []object.ID{want}, NoProgress: true}
	caps := func(req *packp.UploadRequest) string { return req.Capabilities.String() }

	req, err := uploadRequest(adv, f, "u")
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

	f.NoProgress, f.IncludeTag, f.Depth = false, true, 3
	shallow, _ := object.ParseID(strings.Repeat("2", 40))
	f.Shallows = []object.ID{shallow}
	req, err = uploadRequest(adv, f, "u")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(caps(req), "include-tag") || strings.Contains(caps(req), "no-progress") || !strings.Contains(caps(req), "shallow") {
		t.Errorf("request: %s", caps(req))
	}
	if req.Depth.Deepen != 3 || len(req.Shallows) != 1 || strings.Contains(caps(req), "deepen-relative") {
		t.Errorf("depth %v, shallows %v, %s", req.Depth, req.Shallows, caps(req))
	}
	f.DeepenRelative = true
	if req, err = uploadRequest(adv, f, "u"); err == nil {
		t.Error("deepen-relative without the upstream's support")
	}
	adv.Set(capability.DeepenRelative)
	if req, err = uploadRequest(adv, f, "u"); err != nil || !strings.Contains(caps(req), "deepen-relative") {
		t.Errorf("deepen-relative: %v %v", req, err)
	}
	f.DeepenRelative = false

	f.Depth, f.DeepenSince, f.Shallows = 0, time.Unix(1700000000, 0), nil
	if req, err = uploadRequest(adv, f, "u"); err != nil || !req.Depth.DeepenSince.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("deepen-since: %v, %v", req.Depth, err)
	}
	// A server without shallow support cannot serve a shallow repository.
	plain := &capability.List{}
	capability.DecodeList([]byte("ofs-delta side-band-64k"), plain)
	f.Shallows = []object.ID{shallow}
	if _, err := uploadRequest(plain, f, "u"); err == nil || !strings.Contains(err.Error(), "does not support shallow") {
		t.Errorf("no shallow support: %v", err)
	}
}
