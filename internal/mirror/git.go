package mirror

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// gitOut runs git in the git directory dir (gitIn) and returns its
// output; a failure carries git's last line.
func gitOut(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := gitIn(ctx, dir, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %s", args[0], lastLine(errb.String(), err))
	}
	return out.Bytes(), nil
}

// lastLine is the last line of git's stderr, or err where it printed none.
func lastLine(stderr string, err error) string {
	s := strings.TrimSpace(stderr)
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return err.Error()
	}
	return s
}

// cause is the line of git's stderr that names why it failed: its first
// "fatal:" line, else its first "error:" line that is more than git
// remote update's "could not fetch <remote>", else its last line, else
// err.
func cause(stderr string, err error) string {
	var firstErr string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fatal: ") {
			return l
		}
		if firstErr == "" && strings.HasPrefix(l, "error: ") && !strings.HasPrefix(l, "error: could not fetch ") {
			firstErr = l
		}
	}
	if firstErr != "" {
		return firstErr
	}
	return lastLine(stderr, err)
}
