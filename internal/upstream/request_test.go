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

	req, err := uploadRequest(adv, f)
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
	req, err = uploadRequest(adv, f)
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
	if req, err = uploadRequest(adv, f); err == nil {
		t.Error("deepen-relative without the upstream's support")
	}
	adv.Set(capability.DeepenRelative)
	if req, err = uploadRequest(adv, f); err != nil || !strings.Contains(caps(req), "deepen-relative") {
		t.Errorf("deepen-relative: %v %v", req, err)
	}
	f.DeepenRelative = false

	f.Depth, f.DeepenSince, f.Shallows = 0, time.Unix(1700000000, 0), nil
	if req, err = uploadRequest(adv, f); err != nil || !req.Depth.DeepenSince.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("deepen-since: %v, %v", req.Depth, err)
	}
	// A server without shallow support cannot serve a shallow repository.
	plain := &capability.List{}
	capability.DecodeList([]byte("ofs-delta side-band-64k"), plain)
	f.Shallows = []object.ID{shallow}
	if _, err := uploadRequest(plain, f); err == nil || err.Error() != "Server does not support shallow clients" {
		t.Errorf("no shallow support: %v", err)
	}
}

// TestUploadRequestDeepen: every deepening git asks for is sent as
// fetch-pack sends it (each deepen-not a line, with deepen-since), with
// the capabilities that go with them; an upstream that lacks one is
// refused in git's words, in git's order.
func TestUploadRequestDeepen(t *testing.T) {
	want, _ := object.ParseID(strings.Repeat("1", 40))
	shallow, _ := object.ParseID(strings.Repeat("2", 40))
	all := "multi_ack_detailed side-band-64k thin-pack ofs-delta shallow deepen-since deepen-not deepen-relative"
	adv := &capability.List{}
	capability.DecodeList([]byte(all), adv)
	f := &FetchRequest{Wants: []object.ID{want}, Shallows: []object.ID{shallow},
		DeepenSince: time.Unix(1700000900, 0), DeepenNot: []string{"side", "refs/tags/v10"}}
	req, err := uploadRequest(adv, f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := req.Encode(&b); err != nil {
		t.Fatal(err)
	}
	lines := "0035shallow " + shallow.String() + "\n" + "001cdeepen-since 1700000900\n" + "0014deepen-not side\n" + "001ddeepen-not refs/tags/v10\n" + "0000"
	if !strings.HasSuffix(b.String(), lines) {
		t.Errorf("request\n%q\ndoes not end with\n%q", b.String(), lines)
	}
	for _, c := range []string{"deepen-since", "deepen-not"} {
		if !req.Capabilities.Supports(capability.Capability(c)) {
			t.Errorf("request lacks %s: %s", c, req.Capabilities.String())
		}
	}
	if req.Capabilities.Supports(capability.DeepenRelative) {
		t.Errorf("deepen-relative unasked: %s", req.Capabilities.String())
	}

	for _, tc := range []struct {
		drop string // from the advertisement
		f    FetchRequest
		err  string
	}{
		{"shallow", FetchRequest{Depth: 1}, "Server does not support shallow clients"},
		{"shallow", FetchRequest{Shallows: []object.ID{shallow}}, "Server does not support shallow clients"},
		{"deepen-since", FetchRequest{DeepenSince: time.Unix(1, 0), DeepenNot: []string{"x"}}, "Server does not support --shallow-since"},
		{"deepen-not", FetchRequest{DeepenSince: time.Unix(1, 0), DeepenNot: []string{"x"}}, "Server does not support --shallow-exclude"},
		{"deepen-relative", FetchRequest{Depth: 2, DeepenRelative: true}, "Server does not support --deepen"},
		// fetch-pack checks shallow first.
		{"shallow deepen-relative", FetchRequest{Depth: 2, DeepenRelative: true}, "Server does not support shallow clients"},
	} {
		adv := &capability.List{}
		for _, c := range strings.Fields(all) {
			if !strings.Contains(" "+tc.drop+" ", " "+c+" ") {
				adv.Add(capability.Capability(c))
			}
		}
		tc.f.Wants = []object.ID{want}
		if _, err := uploadRequest(adv, &tc.f); err == nil || err.Error() != tc.err {
			t.Errorf("without %s: %v, want %q", tc.drop, err, tc.err)
		}
	}
	// Without deepen-since, a fetch that does not ask for it is served.
	adv = &capability.List{}
	capability.DecodeList([]byte("ofs-delta shallow deepen-not"), adv)
	if _, err := uploadRequest(adv, &FetchRequest{Wants: []object.ID{want}, DeepenNot: []string{"x"}}); err != nil {
		t.Error(err)
	}
}
