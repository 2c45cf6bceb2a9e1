package cli

import (
	"runtime/debug"
	"testing"
)

// TestReserveMemory checks that ReserveMemory moves the soft limit Main
// sets, never below its base, and leaves alone a limit it did not set.
func TestReserveMemory(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	t.Setenv("GOMEMLIMIT", "")
	limitMemory()
	ReserveMemory(10 << 20)
	if got := debug.SetMemoryLimit(-1); got != baseMemoryLimit+10<<20 {
		t.Errorf("limit %d after reserving 10 MiB, want %d", got, baseMemoryLimit+10<<20)
	}
	ReserveMemory(-20 << 20)
	if got := debug.SetMemoryLimit(-1); got != baseMemoryLimit {
		t.Errorf("limit %d after giving back more than reserved, want the base %d", got, baseMemoryLimit)
	}
	ReserveMemory(10 << 20)
	if got := debug.SetMemoryLimit(-1); got != baseMemoryLimit {
		t.Errorf("limit %d, want the base %d: 10 MiB were owed", got, baseMemoryLimit)
	}

	memory.Lock()
	memory.limit = 0 // as when GOMEMLIMIT is set
	memory.Unlock()
	debug.SetMemoryLimit(1 << 40)
	ReserveMemory(10 << 20)
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("limit %d, want GOMEMLIMIT's %d untouched", got, int64(1<<40))
	}
}
