package cli

import (
	"runtime/debug"
	"testing"
)

// TestVersionOf: a release tag where the build knows one, else the
// release and the commit — never "(devel)".
func TestVersionOf(t *testing.T) {
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tt := range []struct {
		stamp string
		bi    *debug.BuildInfo
		want  string
	}{
		{"v0.9.0", nil, "v0.9.0"},
		{"v0.9.0-3-gabcdef1", vcs, "v0.9.0-3-gabcdef1"},
		{"abcdef1", nil, "v" + Release + "+abcdef1"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.1"}}, "v0.9.1"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201123456-abcdef123456"}}, "v" + Release},
		{"", vcs, "v" + Release + "+a1b2c3d4e5f6-dirty"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v" + Release},
		{"", nil, "v" + Release},
	} {
		if got := versionOf(tt.stamp, tt.bi); got != tt.want {
			t.Errorf("versionOf(%q, %+v) = %q, want %q", tt.stamp, tt.bi, got, tt.want)
		}
	}
}
