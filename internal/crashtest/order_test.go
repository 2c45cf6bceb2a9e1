package crashtest

import (
	"strings"
	"testing"
)

const tmp = `1 openat(AT_FDCWD</r>, "/r/objects/ab/tmp_obj_1", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0444) = 5</r/objects/ab/tmp_obj_1>
1 write(5</r/objects/ab/tmp_obj_1>, "x\1", 2) = 2
`

// trace builds a strace excerpt for one object from the given steps.
func trace(steps ...string) string {
	lines := map[string]string{
		"writeout": `1 sync_file_range(5</r/objects/ab/tmp_obj_1>, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER) = 0`,
		"async":    `1 sync_file_range(5</r/objects/ab/tmp_obj_1>, 0, 0, SYNC_FILE_RANGE_WRITE) = 0`,
		"close":    `1 close(5</r/objects/ab/tmp_obj_1>) = 0`,
		"rename":   `1 renameat(AT_FDCWD</r>, "/r/objects/ab/tmp_obj_1", AT_FDCWD</r>, "/r/objects/ab/cdef0123456789abcdef0123456789abcdef01") = 0`,
		"fsync":    `1 fsync(6</r/objects/ab/cdef0123456789abcdef0123456789abcdef01>) = 0`,
		"fsynctmp": `1 fsync(5</r/objects/ab/tmp_obj_1>) = 0`,
		"fsyncdir": `1 fsync(6</r/objects/ab>) = 0`,
		"fsyncup":  `1 fsync(6</r/objects>) = 0`,
		"split":    "1 sync_file_range(5</r/objects/ab/tmp_obj_1>, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER <unfinished ...>\n2 close(7</x>) = 0\n1 <... sync_file_range resumed>) = 0",
	}
	var b strings.Builder
	b.WriteString(tmp)
	for _, s := range steps {
		b.WriteString(lines[s] + "\n")
	}
	return b.String()
}

func TestCheckOrder(t *testing.T) {
	tests := []struct {
		name  string
		trace string
		err   string
	}{
		{"batch", trace("writeout", "close", "rename", "fsync"), ""},
		{"directory commit", trace("writeout", "close", "rename", "fsyncdir"), ""},
		{"another directory", trace("writeout", "close", "rename", "fsyncup"), "renamed last"},
		{"split lines", trace("split", "close", "rename", "fsync"), ""},
		{"no writeout", trace("close", "rename", "fsync"), "without a completed writeout"},
		{"async writeout only", trace("async", "close", "rename", "fsync"), "without a completed writeout"},
		{"no flush", trace("writeout", "close", "rename"), "0 full flushes"},
		{"flush before rename", trace("writeout", "fsynctmp", "close", "rename"), "after the flush"},
		{"two flushes", trace("writeout", "close", "rename", "fsync", "fsync"), "2 full flushes"},
		{"nothing published", trace("writeout", "close"), "no object"},
	}
	for _, tt := range tests {
		calls, err := ParseStrace(strings.NewReader(tt.trace))
		if err != nil {
			t.Fatal(err)
		}
		_, err = CheckOrder(calls)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
		}
	}
}

func TestWrongObjectFlushed(t *testing.T) {
	tr := trace("writeout", "close", "rename") + `1 openat(AT_FDCWD</r>, "/r/objects/ab/tmp_obj_2", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0444) = 5</r/objects/ab/tmp_obj_2>
1 sync_file_range(5</r/objects/ab/tmp_obj_2>, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER) = 0
1 renameat(AT_FDCWD</r>, "/r/objects/ab/tmp_obj_2", AT_FDCWD</r>, "/r/objects/ab/ffff0123456789abcdef0123456789abcdef01") = 0
1 fsync(6</r/objects/ab/cdef0123456789abcdef0123456789abcdef01>) = 0
`
	calls, _ := ParseStrace(strings.NewReader(tr))
	if _, err := CheckOrder(calls); err == nil || !strings.Contains(err.Error(), "renamed last") {
		t.Errorf("flushing an earlier object passed: %v", err)
	}
}
