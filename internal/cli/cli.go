// Package cli holds the commands' logic behind thin mains: each command is a
// function of (context, arguments, standard streams, environment) that
// returns an error, and Exit turns any error into git's message and exit
// code in one place.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
)

// UsageError asks for the usage text on stderr and exit code 129, as git
// unpack-objects answers a bad option and -h alike. Usage is what follows
// "usage: ", lines and all.
type UsageError struct {
	Usage string
}

func (e *UsageError) Error() string { return "usage: " + e.Usage }

// ExitError carries an exit code after the message was already printed.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Exit prints what git would print for err and returns the exit code.
func Exit(err error, stdout, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ue *UsageError
	var ee *ExitError
	var ge *repo.GitError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "usage: %s\n", strings.TrimRight(ue.Usage, "\n"))
		return 129
	case errors.As(err, &ee):
		return ee.Code
	case errors.As(err, &ge):
		io.WriteString(stderr, ge.Stderr)
		if !strings.HasSuffix(ge.Stderr, "\n") {
			io.WriteString(stderr, "\n")
		}
		if ge.Code == 0 {
			return 128
		}
		return ge.Code
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "fatal: interrupted")
		return 130
	}
	fmt.Fprintf(stderr, "fatal: %s\n", err)
	return 128
}
