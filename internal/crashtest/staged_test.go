package crashtest

import (
	"fmt"
	"path/filepath"
	"testing"
)

// staged writes n objects into a staging directory, written out, flushes
// one of them (a commit behind a cache flush: all their data is durable),
// then renames them all into place; with dirs, it then fsyncs every
// directory the renames touched.
func staged(n int, dirs bool) *builder {
	b := &builder{dirs: map[string]bool{}}
	stage := "/r/objects/incoming"
	b.add(Event{Op: Mkdir, Path: stage})
	for i := 0; i < n; i++ {
		_, raw := looseObject(i)
		tmp := filepath.Join(stage, fmt.Sprintf("obj_%d", i))
		b.add(Event{Op: Create, Path: tmp})
		b.add(Event{Op: Write, Path: tmp, Data: raw, Len: int64(len(raw))})
		b.add(Event{Op: Writeout, Path: tmp})
	}
	b.add(Event{Op: Flush, Path: filepath.Join(stage, "obj_0")})
	touched := map[string]bool{stage: true}
	for i := 0; i < n; i++ {
		final, _ := looseObject(i)
		if d := filepath.Dir(final); !b.dirs[d] {
			b.dirs[d] = true
			b.add(Event{Op: Mkdir, Path: d})
		}
		b.add(Event{Op: Rename, Path: filepath.Join(stage, fmt.Sprintf("obj_%d", i)), Path2: final})
		b.expect = append(b.expect, final)
		touched[filepath.Dir(final)] = true
	}
	if dirs {
		for d := range touched {
			b.add(Event{Op: Flush, Path: d})
		}
	}
	return b
}

// TestStagedVariants checks the two staged rows of the measured verdicts
// in crash-model.md: renaming into place after the flush loses every
// object that a crash after the return may leave; fsyncing the touched
// directories after the renames makes it durable under M_J — but not
// under M_P, where the staged data was only written out.
func TestStagedVariants(t *testing.T) {
	const n = 64
	tests := []struct {
		name   string
		dirs   bool
		mj, mp string
	}{
		{"staged, flush, rename into place, nothing after", false, "I-a", "I-a, I-b"},
		{"staged, then fsync of the touched directories", true, "", "I-a, I-b"},
	}
	for _, tt := range tests {
		b := staged(n, tt.dirs)
		for _, m := range []struct {
			model Model
			want  string
		}{{MJ, tt.mj}, {MP, tt.mp}} {
			rep := b.check(t, m.model)
			got := rep.Broken()
			if got != m.want {
				t.Errorf("%s under %v: broke %q, want %q\n%v", tt.name, m.model, got, m.want, rep.Err())
			}
		}
	}
}
