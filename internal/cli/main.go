package cli

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"golang.org/x/term"
)

// Command is a command's logic: arguments and process handles in, an error
// out.
type Command func(ctx context.Context, args []string, env Env) error

// Main runs a command as a program: SIGINT and SIGTERM cancel its context,
// the standard streams and the environment are its Env, and its error
// becomes git's message and exit code. It does not return.
func Main(run Command) {
	limitMemory()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, LookupEnv: os.LookupEnv,
		IsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
	})
	stop()
	os.Exit(Exit(err, os.Stdout, os.Stderr))
}

// limitMemory asks the Go runtime to collect garbage before the heap
// passes what the pipeline really holds (delta base cache, queued entries),
// instead of letting it double: peak memory stays near 64 MiB plus the
// largest object. A GOMEMLIMIT in the environment wins.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(48 << 20)
	}
}
