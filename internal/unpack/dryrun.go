package unpack

import (
	"context"
	"fmt"
	"io"

	"github.com/git-durable/git-durable/pack"
)

// dryRun reads every entry to its end and checks the trailer; nothing is
// written and no delta is resolved, so a missing base goes unnoticed, as
// with git unpack-objects -n.
func dryRun(ctx context.Context, r *pack.Reader, opts Options) (Result, error) {
	var res Result
	hdr, err := r.Header()
	if err != nil {
		return res, err
	}
	errored := false
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		_, err := r.Next()
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if !opts.Recover || !pack.Recoverable(err) {
				return res, err
			}
			for _, l := range errorLines(err) {
				fmt.Fprintf(opts.Messages, "error: %s\n", l)
			}
			errored = true
		}
		res.Objects++
		if opts.Progress != nil {
			opts.Progress(res.Objects, int(hdr.Count), r.Offset())
		}
	}
	res.Checksum, res.Rest = r.Checksum(), r.Rest()
	res.Bytes = r.Offset() - int64(len(res.Checksum))
	if errored {
		return res, ErrRecovered
	}
	return res, nil
}
