package progress

import (
	"strings"
	"testing"
	"time"
)

func TestLines(t *testing.T) {
	var out strings.Builder
	clock := time.Unix(0, 0)
	m := New(&out, "Unpacking objects", 1000, true)
	m.now = func() time.Time { return clock }
	m.start = clock
	for i := 1; i <= 1000; i++ {
		clock = clock.Add(time.Millisecond)
		m.Update(i, int64(i)*2800)
	}
	m.Done()
	lines := strings.Split(out.String(), "\r")
	if len(lines) != 102 { // 0% to 100%, then the final line
		t.Errorf("%d redraws", len(lines))
	}
	want := "Unpacking objects: 100% (1000/1000), 2.67 MiB | 2.67 MiB/s, done.\n"
	if last := lines[len(lines)-1]; last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
	if !strings.HasPrefix(lines[1], "Unpacking objects:   1% (10/1000), 27.34 KiB | ") {
		t.Errorf("first line %q", lines[1])
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1: "1 byte", 1023: "1023 bytes", 1843: "1.80 KiB",
		3 << 20: "3.00 MiB", 5 << 30: "5.00 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

func TestNil(t *testing.T) {
	var m *Meter
	m.Update(1, 1)
	m.Done()
}
