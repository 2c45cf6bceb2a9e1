package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
)

// Release is the project's release that this source is, as CHANGELOG.md
// describes it; a build between releases says the commit it was made from
// beside it.
const Release = "0.9.0"

// version is what make stamps (-ldflags -X): git describe --tags --always
// of the checkout.
var version string

// pseudo matches a Go pseudo-version's tail (…-20261201123456-abcdef123456):
// the module proxy's name for a commit, not a release.
var pseudo = regexp.MustCompile(`[-.]\d{14}-[0-9a-f]{12}(\+dirty)?$`)

// Version is the line --version prints for the program name: its version
// and the Go toolchain it was built with, as "git version" names git's.
// The version is a release tag where the build knows one (make on a tagged
// commit, go install <module>/cmd/...@v0.9.0), else Release and the commit
// ("v0.9.0+a1b2c3d4e5f6", "-dirty" for uncommitted changes), from make's
// stamp or from what go build records of the checkout.
func Version(name string) string {
	return fmt.Sprintf("%s version %s (%s %s/%s)", filepath.Base(name), versionOf(version, buildInfo()), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// buildInfo is what the binary records of its build, if anything.
func buildInfo() *debug.BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return bi
}

// versionOf is Version's version, from make's stamp and the build
// information.
func versionOf(stamp string, bi *debug.BuildInfo) string {
	if strings.HasPrefix(stamp, "v") {
		return stamp // git describe --tags: a release, or after one
	}
	if bi != nil && strings.HasPrefix(bi.Main.Version, "v") && !pseudo.MatchString(bi.Main.Version) {
		return bi.Main.Version
	}
	rev := stamp
	if bi != nil && rev == "" {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value[:min(len(s.Value), 12)] + rev
			case "vcs.modified":
				if s.Value == "true" {
					rev += "-dirty"
				}
			}
		}
	}
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "v" + Release
	}
	return "v" + Release + "+" + rev
}
