package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteBundleURIAdvertised: a server that advertises a bundle of its
// history (uploadpack.advertiseBundleURIs, bundle.*), cloned as a mirror
// through the helper beside plain git (2.45 and later, protocol v2). With
// git's default (transfer.bundleURI unset) neither says a word and the
// helper fetches everything from the upstream, durably; the refs are plain
// git's. With transfer.bundleURI=true git asks the helper's transport for
// the list, which git's transport-helper gives only over a "connect" that
// would hand the fetch to git itself: git says so in its own line ("could
// not retrieve server-advertised bundle-uri list"), and the clone through
// the helper completes all the same, with the refs plain git's clone has
// but its refs/bundles/*.
func TestRemoteBundleURIAdvertised(t *testing.T) {
	env := newGitEnv(t, 2, 45)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	bundle := filepath.Join(base, "all.bundle")
	gittest.Git(t, env, up, "bundle", "create", bundle, "--all")
	for k, v := range map[string]string{"uploadpack.advertiseBundleURIs": "true", "bundle.version": "1", "bundle.mode": "all", "bundle.all.uri": "file://" + bundle} {
		gittest.Git(t, env, up, "config", k, v)
	}
	for _, setting := range []string{"", "transfer.bundleURI=true"} {
		var got [2]string
		for i, side := range hostileSides {
			args := []string{"-c", "protocol.version=2"}
			if setting != "" {
				args = append(args, "-c", setting)
			}
			dst := filepath.Join(t.TempDir(), "m.git")
			c := gittest.Exec(t, env, base, nil, "git", append(args, "clone", "-q", "--mirror", side.prefix+"file://"+up, dst)...)
			mustRun(t, c, side.name+" clone")
			// Plain git, taking the bundle, also keeps its refs/bundles/*.
			var kept []string
			for _, l := range strings.Split(refs(t, env, dst), "\n") {
				if !strings.Contains(l, " refs/bundles/") {
					kept = append(kept, l)
				}
			}
			got[i] = strings.Join(kept, "\n")
			stderr := string(c.Stderr)
			want := ""
			if side.name == "durable" && setting != "" {
				want = "error: could not retrieve server-advertised bundle-uri list\n"
			}
			if !strings.HasSuffix(stderr, want) || strings.Count(stderr, "\n") != strings.Count(want, "\n") {
				t.Errorf("%s, %q: %q, want %q", side.name, setting, stderr, want)
			}
			gittest.Fsck(t, env, dst)
		}
		if got[0] != got[1] {
			t.Errorf("%q: refs through the helper\n%s\nplain git's\n%s", setting, got[1], got[0])
		}
	}
}
