package upstream

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// lsRefs lists the refs as git's ls-remote and fetch ask for them over v2
// (peel, symrefs, unborn when offered; no ref-prefix: the helper lists
// everything, as with v0) and hands each to sink as its line is read.
func (a *v2) lsRefs(t transport.Transport, sink RefSink) error {
	req, err := a.command("ls-refs", &packp.LsRefsArgs{Peel: true, Symrefs: true, Unborn: a.feature("ls-refs", "unborn")})
	if err != nil {
		return err
	}
	in, err := t.Request(req, false)
	if err != nil {
		return err
	}
	return readRefsV2(in, a.format, sink)
}

// readRefsV2 reads an ls-refs answer, "<id> <name>[ symref-target:<t>][
// peeled:<id>]" lines up to a flush, as connect.c's process_ref_v2 reads
// them: a symref target goes to sink.Symref before its ref, a peeled tag
// after it as "<name>^{}". An unborn HEAD ("unborn HEAD symref-target:…")
// is not passed on: the helper protocol cannot say it (git's clone dies on
// a symref whose target is not listed). Nothing is kept: a million refs
// cost no more than one.
func readRefsV2(in *bufio.Reader, f object.Format, sink RefSink) error {
	var buf, peeledName []byte
	for {
		p, err := transport.ReadPkt(in, &buf)
		if err == io.EOF {
			return fmt.Errorf("the ls-refs answer ended early: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return err
		}
		if p == nil {
			return nil
		}
		line := bytes.TrimSuffix(p, []byte("\n"))
		head, rest, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return invalidRef(line)
		}
		name, attrs, _ := bytes.Cut(rest, []byte(" "))
		if string(head) == "unborn" {
			continue
		}
		id, ok := parseID(head, f)
		if !ok {
			return invalidRef(line)
		}
		var peeled object.ID
		for len(attrs) > 0 {
			var attr []byte
			attr, attrs, _ = bytes.Cut(attrs, []byte(" "))
			switch {
			case bytes.HasPrefix(attr, []byte("symref-target:")):
				sink.Symref(string(name), string(attr[len("symref-target:"):]))
			case bytes.HasPrefix(attr, []byte("peeled:")):
				if peeled, ok = parseID(attr[len("peeled:"):], f); !ok {
					return invalidRef(line)
				}
			}
		}
		if err := sink.Ref(name, id); err != nil {
			return err
		}
		if !peeled.IsZero() {
			peeledName = append(append(peeledName[:0], name...), "^{}"...)
			if err := sink.Ref(peeledName, peeled); err != nil {
				return err
			}
		}
	}
}

// invalidRef is git's words for a line of ls-refs it cannot read; the line
// is quoted as errors quote it.
func invalidRef(line []byte) error {
	return fmt.Errorf("invalid ls-refs response: %s", quoted(line))
}

// ReadLsRefs reads a protocol v2 ls-refs answer of ids of format f from
// r, handing each ref to sink as readRefsV2 does.
func ReadLsRefs(r *bufio.Reader, f object.Format, sink RefSink) error {
	sink.Format(f)
	return readRefsV2(r, f, sink)
}
