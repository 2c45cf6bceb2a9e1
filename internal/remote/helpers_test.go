package remote

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/internal/upstream/transport/stream"
)

// sealed is gittest.Sealed (the helper runs git, which reads the
// process's environment), with the batch scheme forced: the tests check its
// counters in temporary directories, whatever filesystem those are on.
func sealed(t *testing.T, gitDir string) []string {
	return gittest.Sealed(t, gitDir, "GIT_DURABLE_FORCE_BATCH=1")
}

// session is one run of the helper's dialogue in memory.
type session struct {
	out, err string
	code     int // 0, or the exit code of the failure
}

// dialogue runs the helper on input (git's side of the dialogue) for the
// URL, with tr's streams as the transport (nil: the one the URL names).
func dialogue(t *testing.T, url, input string, tr stream.Connector) session {
	t.Helper()
	var out, errb bytes.Buffer
	env := proc.Env{Stdin: strings.NewReader(input), Stdout: &out, Stderr: &errb, Getenv: os.Getenv}
	err := Run(context.Background(), []string{"origin", url}, env, Options{Dial: dialOf(tr)})
	s := session{out: out.String(), err: errb.String()}
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		s.code = ee.Code
	} else if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return s
}

// lines splits a reply into its lines (the final newline dropped).
func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// dialOf is the sessions over c's streams, nil for none.
func dialOf(c stream.Connector) transport.Dial {
	if c == nil {
		return nil
	}
	return stream.Dial(c, nil)
}
