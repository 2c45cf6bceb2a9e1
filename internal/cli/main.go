package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/term"

	"github.com/git-durable/git-durable/internal/proc"
)

// Command is a command's logic: arguments and process handles in, an error
// out.
type Command func(ctx context.Context, args []string, env proc.Env) error

// Main runs a command as a program: SIGINT, SIGTERM and SIGHUP cancel its
// context (so that it cleans up: a terminal closed is an interrupt too),
// the standard streams and the environment are its Env, and its error
// becomes git's message and exit code; an interrupted command exits with
// 128 plus the signal's number, as a process the signal killed would.
// After the first signal, a second SIGINT has its default effect; SIGTERM
// and SIGHUP only ever end the context. A lone
// --version prints Version instead. It does not return.
func Main(run Command) { runMain(run, false) }

// HelperMain is Main for a program that git starts and whose work is of no
// use once git is gone — a remote helper: its context also ends, as on
// SIGTERM, when its parent process exits (see watchParent).
func HelperMain(run Command) { runMain(run, true) }

func runMain(run Command, child bool) {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(Version(os.Args[0]))
		os.Exit(0)
	}
	limitMemory()
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	caught := caughtSignals()
	caughtInterrupt := slices.Contains(caught, os.Interrupt)
	signal.Notify(sigs, caught...)
	var got atomic.Int32
	go func() {
		if s, ok := <-sigs; ok {
			if n, ok := s.(syscall.Signal); ok {
				got.Store(int32(n))
			}
			// A second interrupt from the terminal has its default
			// effect. SIGTERM and SIGHUP again are the same request (a
			// process group stopped, and git passing the signal on to
			// the child it runs): the clean-up goes on.
			if caughtInterrupt {
				signal.Reset(os.Interrupt)
			}
			cancel()
		}
	}()
	if child {
		watchParent(cancel)
	}
	err := run(ctx, os.Args[1:], proc.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, LookupEnv: os.LookupEnv,
		IsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
	})
	signal.Stop(sigs)
	code := Exit(err, os.Stdout, os.Stderr)
	if n := got.Load(); n != 0 && errors.Is(err, context.Canceled) {
		code = 128 + int(n)
	}
	cancel()
	os.Exit(code)
}

// caughtSignals are the signals that cancel a command: SIGINT, SIGTERM and
// SIGHUP, each unless the process started with it ignored — as under nohup,
// or SIGINT for a background job of a shell — where the command keeps
// ignoring it, as git does: signal.Notify would otherwise turn an ignored
// signal into a caught one.
func caughtSignals() []os.Signal {
	var sigs []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}

// baseMemoryLimit is the soft memory limit Main sets: what the pipeline
// holds whatever the size of the pack (delta base cache, queued entries,
// waiting deltas), with room for garbage.
const baseMemoryLimit = 48 << 20

// memoryCeiling is as high as ReserveRoom takes the soft limit: with what
// the runtime and the binary hold beside the heap (up to 20 MiB measured
// in the remote helper), a process stays within 128 MiB.
const memoryCeiling = 108 << 20

// memory is the soft limit in force: limit (the base and what
// ReserveMemory added) is 0 when GOMEMLIMIT set it; room is what
// ReserveRoom asked for.
var memory struct {
	sync.Mutex
	limit int64
	room  int64
}

// setLimit sets the soft limit from memory; memory must be locked.
func setLimit() {
	l := max(memory.limit, baseMemoryLimit)
	if memory.room > 0 {
		l = max(l, min(l+memory.room, memoryCeiling))
	}
	debug.SetMemoryLimit(l)
}

// limitMemory asks the Go runtime to collect garbage before the heap
// passes what the pipeline really holds (delta base cache, queued entries),
// instead of letting it double: peak memory stays near 64 MiB plus the
// largest object, plus what ReserveMemory adds. A GOMEMLIMIT in the
// environment wins.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		memory.Lock()
		memory.limit = baseMemoryLimit
		debug.SetMemoryLimit(baseMemoryLimit)
		memory.Unlock()
	}
}

// ReserveMemory raises the soft memory limit by n bytes (lowers it when n
// is negative) for memory that a command holds for as long as it runs and
// that grows with what it received — the unpacker's record of every
// object, the connectivity check's set of ids. Without it, a pack of a
// few hundred thousand objects holds more than the limit, and the garbage
// collector runs without pause. It does nothing when GOMEMLIMIT was set
// or Main did not set a limit, and is safe for concurrent use.
func ReserveMemory(n int64) { reserve(&memory.limit, n) }

// ReserveRoom raises the soft memory limit by n bytes (lowers it when n is
// negative), as far as memoryCeiling, for memory that is not held but
// saves work: room for garbage above what a run holds, so that the
// collector runs less often (a kept pack of git.git to v2.0.0 is 10%
// faster with 25 MiB more). What ReserveMemory adds is never cut by the
// ceiling. It does nothing when GOMEMLIMIT was set or Main did not set a
// limit, and is safe for concurrent use.
func ReserveRoom(n int64) { reserve(&memory.room, n) }

// reserve adds n to one of memory's fields and sets the limit again,
// unless GOMEMLIMIT set it.
func reserve(field *int64, n int64) {
	memory.Lock()
	defer memory.Unlock()
	if n == 0 || memory.limit == 0 {
		return
	}
	*field += n
	setLimit()
}
