package upstream

import (
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// sealed is gittest.Sealed: the transports run git, which reads the
// process's environment.
func sealed(t *testing.T, gitDir string) []string { return gittest.Sealed(t, gitDir) }

const oid1 = "1111111111111111111111111111111111111111"

// advertisement builds a v0 ref advertisement of pkt-lines.
func advertisement(t testing.TB, lines ...string) []byte { return gittest.Advertisement(lines...) }
