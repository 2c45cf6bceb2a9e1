package crashtest

import (
	"errors"
	"fmt"
	"strings"
)

// Model is a crash model: what a crash may keep of a trace.
type Model int

const (
	// MJ is a journaled filesystem with a volatile device write cache
	// (ext4 data=ordered, xfs). A crash state is a commit point c: the
	// metadata operations before c are kept, as a prefix, each atomic;
	// every inode holds its data as of its last writeout (or fsync) before
	// c, and a kept name whose inode had none holds nothing. A background
	// commit can come at any point, so every c is a crash state. An fsync
	// of X forces the commit point past the last metadata operation that
	// touched X (for a directory: X or an entry in it); syncfs forces it
	// past everything before it.
	MJ Model = iota
	// MP is POSIX-strict (btrfs-like): fsync of a file makes only its data
	// durable, a writeout makes nothing durable, and a name is durable only
	// once its directory was fsynced after it was made (and that directory's
	// own name likewise). Any name made may show up after a crash, with the
	// data its inode had at its last fsync.
	MP
	// MA is a journaled filesystem whose commit record is not preceded by
	// a device cache flush (ext4 journal_async_commit): crash states are
	// MJ's commit points, but a writeout makes data durable only once a
	// later cache flush completed — an fsync of a regular file, which
	// always ends with one, or syncfs. An fsync of a directory forces a
	// commit and counts as no flush: ext4 issues none when nothing is left
	// to commit, and an async commit's flush comes after its record. I-b
	// is checked with the data as of the flushes before each commit point;
	// I-a, in each commit point from Floor on, with the data as of every
	// flush of the run (a crash after the return comes after all of them).
	MA
)

func (m Model) String() string {
	switch m {
	case MP:
		return "M_P"
	case MA:
		return "M_A"
	}
	return "M_J"
}

// Options says how to check a trace. The zero value checks I-b under MJ.
type Options struct {
	Model Model
	// Initial are the events that built the filesystem before the run;
	// all their effects are durable when the run starts. An object name
	// that is broken in this initial state is not held against the run
	// until the run replaces it.
	Initial []Event
	// Expect lists the final names of the objects a successful run
	// reported: I-a is checked for them. Nil means the run did not succeed
	// and only I-b is checked.
	Expect []string
	// Content returns a file's content after the run. It supplies the data
	// of inodes whose writes were recorded without it (strace): a crash
	// keeps a prefix of the final content, as long as the writes it keeps.
	Content func(path string) ([]byte, error)
	// Readable, when set, is asked of every crash state (M_J, M_A) what
	// in it git cannot read that it could before (a ref file gone, a
	// packed-refs cut short): read gives what the state holds under a
	// path, and whether the name is there. A non-empty answer breaks the
	// invariant "readable" in that state.
	Readable func(read func(path string) ([]byte, bool)) string
}

// Violation is a crash state that breaks an invariant: the first of a run
// of consecutive states that break it.
type Violation struct {
	Invariant string // "I-a" or "I-b"
	State     int    // the commit point: how many events of the run are kept
	After     string // the last event kept
	Path      string
	Reason    string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s broken in state %d (after %s): %s: %s", v.Invariant, v.State, v.After, v.Path, v.Reason)
}

// maxViolations bounds the violations a Report describes; all are counted.
const maxViolations = 8

// Report is the verdict on one trace.
type Report struct {
	Model   Model
	Events  int // events of the run the model sees
	States  int // crash states checked
	Objects int // object names the run published (renames, links, creates)
	// Floor is the first commit point of a crash after the run returned:
	// the last commit the run forced (M_J, M_A). I-a is checked from there
	// on.
	Floor int
	// BrokenBefore is how many object names were broken before the run.
	BrokenBefore int
	// BadIB and BadIA count the states breaking I-b and I-a; BadReadable
	// those Options.Readable found wanting.
	BadIB, BadIA, BadReadable int
	Violations                []Violation // the first few
}

// Durable reports whether every invariant held in every state.
func (r *Report) Durable() bool { return r.BadIB == 0 && r.BadIA == 0 && r.BadReadable == 0 }

// Broken names the invariants broken in some state: "", "I-a", "I-b" or
// "I-a, I-b".
func (r *Report) Broken() string {
	var out []string
	if r.BadIA > 0 {
		out = append(out, "I-a")
	}
	if r.BadIB > 0 {
		out = append(out, "I-b")
	}
	return strings.Join(out, ", ")
}

// Err returns nil when the trace is durable and otherwise an error that
// describes the first violations.
func (r *Report) Err() error {
	if r.Durable() {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %d of %d states break I-b, %d break I-a, %d are less readable", r.Model, r.BadIB, r.States, r.BadIA, r.BadReadable)
	for _, v := range r.Violations {
		b.WriteString("\n\t" + v.String())
	}
	return errors.New(b.String())
}

func (r *Report) String() string {
	return fmt.Sprintf("%v: %d events, %d objects, %d states, floor %d, I-b broken in %d, I-a broken in %d, less readable in %d",
		r.Model, r.Events, r.Objects, r.States, r.Floor, r.BadIB, r.BadIA, r.BadReadable)
}

// Check enumerates every crash state of the run's events under the model
// and checks I-b in each; with opts.Expect, it checks I-a in each state a
// crash after the return may leave (M_J, M_A: every commit point from
// Floor on; M_P: the state where nothing but what was fsynced survived). The walk is
// incremental: each event changes the state of the names it touches only,
// so a trace of n events over k objects costs O(n + k) object checks.
// An error means the trace itself is inconsistent (a rename of a name
// that does not exist).
func Check(run []Event, opts Options) (*Report, error) {
	t, err := resolve(opts.Initial, run)
	if err != nil {
		return nil, err
	}
	w := newWalker(t, opts)
	// Under MA, I-a is judged by a second walk whose data is what every
	// flush of the run made durable.
	ia := w
	if opts.Model == MA {
		ia = newWalker(t, opts)
		ia.fixed(flushedData(t))
	}
	rep := &Report{Model: opts.Model, Events: len(t.steps), States: len(t.steps) + 1, BrokenBefore: len(w.exempt)}
	for _, s := range t.steps {
		if s.floor > rep.Floor && (s.Op == Flush || s.Op == Syncfs) {
			rep.Floor = s.floor
		}
		if s.Path2 != "" && tracked(s.Path2) || s.Op == Create && tracked(s.Path) {
			rep.Objects++
		}
	}
	// A violation is described where a run of bad states begins.
	after, inB, inA := "the start", false, false
	for c := 0; c <= len(t.steps); c++ {
		if c > 0 {
			w.apply(c-1, t.steps[c-1])
			if ia != w {
				ia.apply(c-1, t.steps[c-1])
			}
			after = t.steps[c-1].String()
		}
		if len(w.bad) > 0 {
			rep.BadIB++
			if !inB {
				rep.add("I-b", c, after, w.bad)
			}
		}
		inB = len(w.bad) > 0
		if opts.Readable != nil && opts.Model != MP {
			if why := opts.Readable(w.read); why != "" {
				rep.BadReadable++
				if len(rep.Violations) < maxViolations {
					rep.Violations = append(rep.Violations, Violation{"readable", c, after, "", why})
				}
			}
		}
		if opts.Expect != nil && opts.Model != MP && c >= rep.Floor && len(ia.missing) > 0 {
			rep.BadIA++
			if !inA {
				rep.add("I-a", c, after, ia.missing)
			}
			inA = true
		} else {
			inA = false
		}
	}
	if opts.Expect != nil && opts.Model == MP {
		if lost := w.strictLost(); len(lost) > 0 {
			rep.BadIA++
			rep.add("I-a", len(t.steps), "the return, with only what was fsynced", lost)
		}
	}
	return rep, nil
}

// add describes a violation by the first of the offending names, while
// the report holds fewer than maxViolations.
func (r *Report) add(inv string, c int, after string, names map[string]string) {
	if len(r.Violations) >= maxViolations {
		return
	}
	first := ""
	for p := range names {
		if first == "" || p < first {
			first = p
		}
	}
	why := names[first]
	if len(names) > 1 {
		why += fmt.Sprintf(" (and %d more)", len(names)-1)
	}
	r.Violations = append(r.Violations, Violation{inv, c, after, first, why})
}
