package upstream

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/internal/gittest"
)

// sealed sets the process environment to gittest's sealed one (the
// transports run git, which reads it), with GIT_DIR set to gitDir, or
// unset when it is empty, and returns it as a list for gittest's commands.
func sealed(t *testing.T, gitDir string) []string {
	t.Helper()
	gittest.Need(t)
	env := gittest.Env(t)
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k != "PATH" {
			t.Setenv(k, v)
		}
	}
	t.Setenv("GIT_DIR", gitDir)
	if gitDir == "" {
		os.Unsetenv("GIT_DIR")
	}
	return env
}

const oid1 = "1111111111111111111111111111111111111111"

// advertisement builds a v0 ref advertisement of pkt-lines.
func advertisement(t testing.TB, lines ...string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		if _, err := pktline.WriteString(&b, l); err != nil {
			t.Fatal(err)
		}
	}
	if err := pktline.WriteFlush(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
