package crashtest

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// looseObject returns the final path and file content of blob i.
func looseObject(i int) (string, []byte) {
	data := []byte(fmt.Sprintf("blob number %d\n", i))
	id, _ := object.SHA1.Sum(object.Blob, data)
	d, rest := id.Shard()
	return filepath.Join("/r/objects", d, rest), packtest.Deflate(append(object.Header(nil, object.Blob, int64(len(data))), data...))
}

// builder writes event traces the way a policy would.
type builder struct {
	evs    []Event
	expect []string
	dirs   map[string]bool
}

func (b *builder) add(e Event) { e.Line = len(b.evs); b.evs = append(b.evs, e) }

// object writes blob i to a temporary file; steps say what follows the
// write: "wo" (writeout), "sync" (fsync of the open file), "rename".
func (b *builder) object(i int, steps ...string) string {
	final, raw := looseObject(i)
	dir := filepath.Dir(final)
	if !b.dirs[dir] {
		b.dirs[dir] = true
		b.add(Event{Op: Mkdir, Path: dir})
	}
	tmp := filepath.Join(dir, fmt.Sprintf("tmp_obj_%d", i))
	b.add(Event{Op: Create, Path: tmp})
	b.add(Event{Op: Write, Path: tmp, Data: raw[:len(raw)/2], Len: int64(len(raw) / 2)})
	b.add(Event{Op: Write, Path: tmp, Data: raw[len(raw)/2:], Len: int64(len(raw) - len(raw)/2)})
	cur := tmp
	for _, s := range steps {
		switch s {
		case "wo":
			b.add(Event{Op: Writeout, Path: cur})
		case "sync":
			b.add(Event{Op: Flush, Path: cur})
		case "rename":
			b.add(Event{Op: Rename, Path: tmp, Path2: final})
			b.expect = append(b.expect, final)
			cur = final
		}
	}
	return final
}

// objects builds n objects with the same steps.
func objects(n int, steps ...string) *builder { return after(nil, n, steps...) }

// after is objects, after the events first.
func after(first []Event, n int, steps ...string) *builder {
	b := &builder{dirs: map[string]bool{}}
	for _, e := range first {
		b.add(e)
	}
	for i := 0; i < n; i++ {
		b.object(i, steps...)
	}
	return b
}

func (b *builder) check(t *testing.T, m Model) *Report {
	t.Helper()
	rep, err := Check(b.evs, Options{Model: m, Expect: b.expect, Initial: []Event{{Op: Mkdir, Path: "/r/objects"}}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestModels(t *testing.T) {
	const n = 20
	lastFinal, _ := looseObject(n - 1)
	firstFinal, _ := looseObject(0)
	tests := []struct {
		name   string
		b      *builder
		then   []Event
		mj, mp string // the invariants that must break, as Report.Broken names them
		ma     string
	}{
		{"batch", objects(n, "wo", "rename"), []Event{{Op: Flush, Path: lastFinal}}, "", "I-a, I-b", "I-b"},
		{"fsync per object and dirs", objects(n, "sync", "rename"), dirFlushes(n), "", "", ""},
		{"fsync per object, no dir fsync", objects(n, "sync", "rename"), nil, "I-a", "I-a", "I-a"},
		{"no writeout", objects(n, "rename"), []Event{{Op: Flush, Path: lastFinal}}, "I-a, I-b", "I-a, I-b", "I-a, I-b"},
		// I-a too: the state between the last rename and its writeout is after
		// the last forced commit (see TestWriteoutAfterRenameOneState).
		{"writeout after rename", objects(n, "rename", "wo"), []Event{{Op: Flush, Path: lastFinal}}, "I-a, I-b", "I-a, I-b", "I-b"},
		{"no flush", objects(n, "wo", "rename"), nil, "I-a", "I-a, I-b", "I-a, I-b"},
		{"flush of the first object", objects(n, "wo", "rename"), []Event{{Op: Flush, Path: firstFinal}}, "I-a", "I-a, I-b", "I-a, I-b"},
		{"flush of a file made after", objects(n, "wo", "rename"),
			[]Event{{Op: Create, Path: "/r/x"}, {Op: Flush, Path: "/r/x"}}, "", "I-a, I-b", "I-b"},
		{"flush of a file made before", after([]Event{{Op: Create, Path: "/r/x"}}, n, "wo", "rename"),
			[]Event{{Op: Flush, Path: "/r/x"}}, "I-a", "I-a, I-b", "I-a, I-b"},
		{"syncfs", objects(n, "wo", "rename"), []Event{{Op: Syncfs}}, "", "I-b", "I-b"},
		{"flush of the last directory", objects(n, "wo", "rename"), []Event{{Op: Flush, Path: filepath.Dir(lastFinal)}}, "", "I-a, I-b", "I-a, I-b"},
		{"flush of the first directory", objects(n, "wo", "rename"), []Event{{Op: Flush, Path: filepath.Dir(firstFinal)}}, "I-a", "I-a, I-b", "I-a, I-b"},
	}
	for _, tt := range tests {
		for _, e := range tt.then {
			tt.b.add(e)
		}
		for _, m := range []struct {
			model Model
			want  string
		}{{MJ, tt.mj}, {MP, tt.mp}, {MA, tt.ma}} {
			rep := tt.b.check(t, m.model)
			got := rep.Broken()
			if got != m.want {
				t.Errorf("%s under %v: broke %q, want %q\n%v", tt.name, m.model, got, m.want, rep.Err())
			}
			if rep.Objects != n {
				t.Errorf("%s: %d objects", tt.name, rep.Objects)
			}
		}
	}
}

// dirFlushes flushes every fan-out directory and the objects directory, as
// the fsync path does at the end.
func dirFlushes(n int) []Event {
	seen := map[string]bool{"/r/objects": true}
	out := []Event{{Op: Flush, Path: "/r/objects"}}
	for i := 0; i < n; i++ {
		p, _ := looseObject(i)
		if d := filepath.Dir(p); !seen[d] {
			seen[d] = true
			out = append(out, Event{Op: Flush, Path: d})
		}
	}
	return out
}

// TestWriteoutAfterRenameOneState checks that the model finds exactly the
// window between a rename and a late writeout. That state is also after
// the last forced commit, so I-a breaks in it too: the model takes data as
// of the commit point, not as of the later fsync (pessimistic for files
// written once).
func TestWriteoutAfterRenameOneState(t *testing.T) {
	b := objects(1, "rename", "wo")
	b.add(Event{Op: Flush, Path: b.expect[0]})
	rep := b.check(t, MJ)
	if rep.BadIB != 1 || rep.BadIA != 1 || rep.Floor != 5 || rep.Violations[0].State != 5 {
		t.Errorf("%v\n%v", rep, rep.Err())
	}
}

// TestRepairOfBrokenObject starts from a repository holding a broken
// object: it is not the run's fault until the run replaces it, and the
// replacement must be complete the moment it is renamed over. A run that
// leaves it broken fails I-a.
func TestRepairOfBrokenObject(t *testing.T) {
	p, raw := looseObject(7)
	initial := []Event{{Op: Mkdir, Path: "/r/objects"}, {Op: Mkdir, Path: filepath.Dir(p)},
		{Op: Create, Path: p}, {Op: Write, Path: p, Data: raw[:3], Len: 3}}
	tmp := filepath.Join(filepath.Dir(p), "tmp_obj_x")
	write := []Event{{Op: Create, Path: tmp}, {Op: Write, Path: tmp, Data: raw, Len: int64(len(raw))}}
	tests := []struct {
		name string
		run  []Event
		want string
	}{
		{"repaired", append(write[:2:2], Event{Op: Writeout, Path: tmp}, Event{Op: Rename, Path: tmp, Path2: p}, Event{Op: Flush, Path: p}), ""},
		{"repaired without writeout", append(write[:2:2], Event{Op: Rename, Path: tmp, Path2: p}, Event{Op: Flush, Path: p}), "I-a, I-b"},
		{"left broken", append(write[:2:2], Event{Op: Writeout, Path: tmp}, Event{Op: Flush, Path: tmp}), "I-a"},
	}
	for _, tt := range tests {
		rep, err := Check(tt.run, Options{Initial: initial, Expect: []string{p}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.BrokenBefore != 1 || rep.Broken() != tt.want {
			t.Errorf("%s: broke %q, want %q; %v\n%v", tt.name, rep.Broken(), tt.want, rep, rep.Err())
		}
	}
}
