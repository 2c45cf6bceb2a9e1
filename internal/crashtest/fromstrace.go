package crashtest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// FromStrace converts system calls read by ParseStrace (`strace -f -y`)
// into events, in one order consistent with the trace.
//
// Threads make calls overlap; the order is chosen so that every check is
// conservative. A metadata operation (create, mkdir, rename, link,
// unlink) is placed where it started — as early as it can have joined the
// journal — so a name is never thought to appear later than it can have. A
// write, a writeout or an fsync is placed where it completed — as late as
// its effect can have been assured — so data is never thought durable
// earlier than it was. Failed calls and calls cut short by the end of the
// process are dropped: nothing they did is relied on.
//
// An fsync that overlaps a metadata operation on the same name has no
// single order (did the flush commit that operation?), and neither has a
// write at a given offset (pwrite) nor a rename exchange: such traces are
// refused with an error rather than guessed at.
//
// Writes carry their length, not their data (strace prints only a prefix
// of it): give Check an Options.Content that reads the files after the
// run. Every file of a trace is written once, from its start, so a crash
// keeps a prefix of its final content as long as the writes it keeps.
func FromStrace(calls []Call) ([]Event, error) {
	type keyed struct {
		key, seq int
		e        Event
	}
	var out []keyed
	cwd := cwds{}
	meta := map[string][]Call{} // path → metadata calls naming it
	var flushes []Call
	for i, c := range calls {
		cwd.see(c)
		if !c.OK() {
			continue
		}
		evs, err := straceEvents(c, cwd[c.Pid])
		if err != nil {
			return nil, fmt.Errorf("crash: line %d: %s: %w", c.Start+1, c.Name, err)
		}
		for _, e := range evs {
			e.Line = c.Start + 1
			k := keyed{key: c.End, seq: i, e: e}
			if e.Op.metadata() {
				k.key = c.Start
				meta[e.Path] = append(meta[e.Path], c)
				if e.Path2 != "" {
					meta[e.Path2] = append(meta[e.Path2], c)
				}
			} else if e.Op == Flush {
				flushes = append(flushes, c)
			}
			out = append(out, k)
		}
	}
	for _, f := range flushes {
		p := FdPath(f.Args[0])
		for _, m := range meta[p] {
			if m.Start <= f.End && f.Start <= m.End {
				return nil, fmt.Errorf("crash: line %d: %s of %s overlaps the %s at line %d: no order is sure", f.Start+1, f.Name, p, m.Name, m.Start+1)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].key != out[j].key {
			return out[i].key < out[j].key
		}
		return out[i].seq < out[j].seq
	})
	evs := make([]Event, len(out))
	for i, k := range out {
		evs[i] = k.e
	}
	return evs, nil
}

// straceEvents returns the events of one successful call.
func straceEvents(c Call, cwd string) ([]Event, error) {
	at := "AT_FDCWD<" + cwd + ">"
	arg := func(i int) string {
		if i < len(c.Args) {
			return c.Args[i]
		}
		return ""
	}
	switch c.Name {
	case "openat", "open", "creat":
		flags := arg(2)
		if c.Name == "open" {
			flags = arg(1)
		}
		if c.Name == "creat" || strings.Contains(flags, "O_CREAT") {
			return []Event{{Op: Create, Path: FdPath(c.Ret)}}, nil
		}
	case "write", "writev":
		n, err := strconv.ParseInt(strings.TrimSpace(c.Ret), 10, 64)
		if err != nil {
			return nil, err
		}
		return []Event{{Op: Write, Path: FdPath(arg(0)), Len: n}}, nil
	case "pwrite64", "pwritev", "pwritev2":
		if strings.HasPrefix(FdPath(arg(0)), "/") {
			return nil, fmt.Errorf("a positioned write to %s is not modelled", FdPath(arg(0)))
		}
	case "sync_file_range", "sync_file_range2":
		if f := arg(3); strings.Contains(f, "WAIT_BEFORE") && strings.Contains(f, "SYNC_FILE_RANGE_WRITE") && strings.Contains(f, "WAIT_AFTER") {
			return []Event{{Op: Writeout, Path: FdPath(arg(0))}}, nil
		}
	case "fsync", "fdatasync":
		return []Event{{Op: Flush, Path: FdPath(arg(0))}}, nil
	case "syncfs", "sync":
		return []Event{{Op: Syncfs}}, nil
	case "rename", "renameat", "renameat2", "link", "linkat":
		if strings.Contains(arg(4), "RENAME_EXCHANGE") {
			return nil, fmt.Errorf("an exchange is not modelled")
		}
		from, to := renameArgs(c, cwd)
		op := Rename
		if strings.HasPrefix(c.Name, "link") {
			op = Link
		}
		return []Event{{Op: op, Path: from, Path2: to}}, nil
	case "unlink", "rmdir":
		return []Event{{Op: Remove, Path: atPath(at, arg(0))}}, nil
	case "unlinkat":
		return []Event{{Op: Remove, Path: atPath(arg(0), arg(1))}}, nil
	case "mkdir":
		return []Event{{Op: Mkdir, Path: atPath(at, arg(0))}}, nil
	case "mkdirat":
		return []Event{{Op: Mkdir, Path: atPath(arg(0), arg(1))}}, nil
	}
	return nil, nil
}
