// Package unpack is the command git-unpack-durable, a drop-in for git
// unpack-objects: it explodes a pack stream on stdin into loose objects of
// the current repository, with git's flags, messages and exit codes, and
// makes every object durable (writeout before rename, one flush after the
// last rename) before it exits.
//
// Its main package is cmd/git-unpack-durable, because go install names a
// binary after its directory: git finds "git unpack-durable" only as
// git-unpack-durable, and a binary called unpack would be nothing git
// runs, with a generic name on the user's PATH.
package unpack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/report"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/pack"
)

// unpackUsage is what -h and a bad option print after "usage: ", in the
// layout of git's parse-options.
const unpackUsage = `git unpack-durable [-n] [-q] [-r] [--strict[=<msg-id>=<severity>,...]]
                          [--max-input-size=<n>] [--pack_header=<version>,<count>]
                          [--keep[=<msg>]] [--unpack-limit=<n>] [--stats] < <pack>

    -n                    check the pack and write nothing (dry run)
    -q                    do not show progress
    -r                    recover: skip corrupt objects and go on
    --strict[=<msg-id>=<severity>,...]
                          check every object as git fsck does before it is written
    --max-input-size=<n>  die if the pack is larger than <n> bytes
    --pack_header=<version>,<count>
                          the pack's 12-byte header was read already
    --keep[=<msg>]        keep the pack (.pack, .idx, .rev, and a .keep with <msg>)
    --unpack-limit=<n>    keep the pack only if it has at least <n> objects
    --stats               print one line of statistics (JSON) on stderr
    --version             print the version and exit

Objects are synced as core.fsync and core.fsyncMethod say (batch when
none of the fsync settings is set). See git-unpack-durable(1).`

// unpackArgs are the parsed arguments of git-unpack-durable.
type unpackArgs struct {
	dryRun, quiet, recover, stats bool
	strict                        *fsck.Options
	maxInputSize                  int64
	header                        []byte       // from --pack_header
	keep                          *unpack.Keep // --keep or --unpack-limit: keep the pack
	unpackLimit                   uint32
}

// parseUnpackArgs parses git unpack-objects' command line: each argument
// must match an option exactly, no bundling, no operands.
func parseUnpackArgs(args []string) (*unpackArgs, error) {
	a := &unpackArgs{}
	for _, arg := range args {
		switch {
		case arg == "-n":
			a.dryRun = true
		case arg == "-q":
			a.quiet = true
		case arg == "-r":
			a.recover = true
		case arg == "--stats":
			a.stats = true
		case arg == "--keep" || strings.HasPrefix(arg, "--keep="):
			msg, _ := strings.CutPrefix(arg, "--keep=")
			if arg == "--keep" {
				msg = ""
			}
			a.keep = &unpack.Keep{File: true, Message: msg}
		case strings.HasPrefix(arg, "--unpack-limit="):
			n, err := strconv.ParseUint(strings.TrimPrefix(arg, "--unpack-limit="), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("bad %s", arg)
			}
			a.unpackLimit = uint32(n)
		case arg == "--strict":
			a.strict = fsck.Strict()
		case strings.HasPrefix(arg, "--strict="):
			o, err := fsck.Parse(strings.TrimPrefix(arg, "--strict="))
			if err != nil {
				return nil, err
			}
			a.strict = o
		case strings.HasPrefix(arg, "--pack_header="):
			h, ok := packHeader(strings.TrimPrefix(arg, "--pack_header="))
			if !ok {
				return nil, fmt.Errorf("bad %s", arg)
			}
			a.header = h
		case strings.HasPrefix(arg, "--max-input-size="):
			a.maxInputSize = leadingUint(strings.TrimPrefix(arg, "--max-input-size="))
		case arg == "-h" || arg == "--help-all":
			return nil, &cli.UsageError{Usage: unpackUsage}
		default:
			return nil, &cli.UsageError{Usage: unpackUsage}
		}
	}
	return a, nil
}

// packHeader builds the 12 header bytes of "--pack_header=<version>,<count>".
func packHeader(v string) ([]byte, bool) {
	ver, count, ok := strings.Cut(v, ",")
	if !ok {
		return nil, false
	}
	a, err1 := strconv.ParseUint(ver, 10, 32)
	b, err2 := strconv.ParseUint(count, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	return pack.AppendHeader(nil, pack.Header{Version: uint32(a), Count: uint32(b)}), true
}

// leadingUint is strtoumax(s, NULL, 10): the leading decimal digits, 0 if none.
func leadingUint(s string) int64 {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' || n > (1<<63-1)/10-9 {
			break
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// Run is git-unpack-durable: git unpack-objects with durable writes. A
// failure of the unpack is printed in git's words and returned as a
// *cli.ExitError with git's exit code.
func Run(ctx context.Context, args []string, env proc.Env) error {
	a, err := parseUnpackArgs(args)
	if err != nil {
		return err
	}
	r, err := repo.Discover(ctx)
	if err != nil {
		return err
	}
	t, err := objstore.Open(r, env.Getenv, env.Stderr, false)
	if err != nil {
		return err
	}
	defer t.Close()
	run := t.Begin()
	in := cli.Interruptible(ctx, env.Stdin)
	if a.header != nil {
		in = io.MultiReader(bytes.NewReader(a.header), in)
	}
	keep := a.keep
	if a.unpackLimit > 0 && keep == nil {
		keep = &unpack.Keep{}
	}
	opts := run.Options(env.Stderr, keep)
	opts.DryRun, opts.Recover, opts.Strict, opts.MaxInputSize = a.dryRun, a.recover, a.strict, a.maxInputSize
	opts.UnpackLimit = a.unpackLimit
	if !a.quiet && env.IsTerminal {
		opts.Progress = run.Progress(env.Stderr)
	}
	res, err := unpack.Run(ctx, in, t.Store, run.Policy, opts)
	if err == nil {
		run.Done()
	}
	st := run.Stats(res)
	if err == nil || a.stats {
		report.WriteTrace2(env.Getenv, env.Stderr, st.Stats)
	}
	if a.stats {
		line, _ := json.Marshal(st)
		fmt.Fprintf(env.Stderr, "%s\n", line)
	}
	if err != nil {
		if h := objstore.NoSpaceHint(err, t.Repo.ObjectDir); h != "" {
			fmt.Fprintf(env.Stderr, "hint: %s\n", h)
		}
		return fail(err, env.Stderr)
	}
	if res.Pack != "" { // as git index-pack --stdin reports a pack it kept
		kind := "pack"
		if res.KeepPath != "" {
			kind = "keep"
		}
		fmt.Fprintf(env.Stdout, "%s\t%s\n", kind, res.Pack)
	}
	_, err = env.Stdout.Write(res.Rest)
	return err
}

// fail prints git's lines for a failed unpack and returns git's exit
// code; an interruption is returned as it is, for cli.Exit.
func fail(err error, stderr io.Writer) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	lines, kind := unpack.Describe(err)
	for _, l := range lines {
		fmt.Fprintln(stderr, l)
	}
	if kind == unpack.Error {
		return &cli.ExitError{Code: 1}
	}
	return &cli.ExitError{Code: 128}
}
