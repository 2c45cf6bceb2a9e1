package cli

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
)

// version is the project's version, stamped by make (-ldflags -X); a go
// install of a tagged module has it in its build information instead.
var version string

// Version is the line --version prints for the program name: its version
// ("(devel)" for a build from a checkout that make did not stamp) and the
// Go toolchain it was built with, as "git version" names git's.
func Version(name string) string {
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("%s version %s (%s %s/%s)", filepath.Base(name), v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
