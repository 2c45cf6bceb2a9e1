package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/internal/progress"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/pack"
)

const unpackUsage = "git unpack-durable [-n] [-q] [-r] [--strict] [--keep[=<msg>]] [--unpack-limit=<n>] [--stats]"

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
			return nil, &UsageError{Usage: unpackUsage, Help: true}
		default:
			return nil, &UsageError{Usage: unpackUsage}
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

// Unpack is git-unpack-durable: git unpack-objects with durable writes.
func Unpack(ctx context.Context, args []string, env Env) error {
	a, err := parseUnpackArgs(args)
	if err != nil {
		return err
	}
	r, err := repo.Discover(ctx)
	if err != nil {
		return err
	}
	set, err := r.Config.Settings(env.Getenv)
	if err != nil {
		return err
	}
	for _, w := range set.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	start := time.Now()
	store := loose.Open(batch.OS, r.ObjectDir, loose.Options{
		Format: r.Format, Compression: &set.Compression, Shared: set.Shared,
		Alternates: loose.SplitAlternates(env.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES")),
	})
	defer store.Close()
	policy := set.Policy(batch.OS, r.ObjectDir)
	in := env.Stdin
	if a.header != nil {
		in = io.MultiReader(bytes.NewReader(a.header), in)
	}
	opts := unpack.Options{
		DryRun: a.dryRun, Recover: a.recover, Strict: a.strict, MaxInputSize: a.maxInputSize,
		BigFileThreshold: set.BigFileThreshold,
		Messages:         env.Stderr,
		Keep:             a.keep, UnpackLimit: a.unpackLimit,
		Reserve: ReserveMemory,
	}
	if a.unpackLimit > 0 && a.keep == nil {
		opts.Keep = &unpack.Keep{}
	}
	if opts.Keep != nil {
		opts.Keep.Compression = set.PackCompression
	}
	var meter *progress.Meter
	if !a.quiet && env.IsTerminal {
		opts.Progress = func(done, total int, n int64) {
			if meter == nil {
				meter = progress.New(env.Stderr, "Unpacking objects", total, true)
			}
			meter.Update(done, n)
		}
	}
	res, err := unpack.Run(ctx, in, store, policy, opts)
	if meter != nil && err == nil {
		meter.Done()
	}
	st := policy.Stats()
	if err == nil || a.stats {
		WriteTrace2(env.Getenv("GIT_TRACE2_EVENT"), env.Stderr, st)
	}
	if a.stats {
		writeStats(env, res, st, store.Repaired(), time.Since(start))
	}
	if err != nil {
		return err
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

// Stats is the line --stats prints, and the heart of each line the remote
// helper records per fetch batch: what the unpack did, and the sync
// counters with git's trace2 names.
type Stats struct {
	Objects  int     `json:"objects"`
	Bytes    int64   `json:"bytes"`
	Written  int     `json:"written"`
	Existing int     `json:"existing"`
	Repaired int64   `json:"repaired"`
	Seconds  float64 `json:"seconds"`
	Pack     string  `json:"pack,omitempty"` // the checksum of a pack kept instead of loose objects
	batch.Stats
}

// NewStats gathers the stats of one unpack.
func NewStats(res unpack.Result, st batch.Stats, repaired int64, d time.Duration) Stats {
	return Stats{Objects: res.Objects, Bytes: res.Bytes, Written: res.Written, Existing: res.Existing,
		Repaired: repaired, Seconds: d.Seconds(), Pack: res.Pack, Stats: st}
}

func writeStats(env Env, res unpack.Result, st batch.Stats, repaired int64, d time.Duration) {
	line, _ := json.Marshal(NewStats(res, st, repaired, d))
	fmt.Fprintf(env.Stderr, "%s\n", line)
}
