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

// TestReserveRoom checks that ReserveRoom raises the soft limit only as far
// as memoryCeiling, never cuts what ReserveMemory added, and gives back
// what it took.
func TestReserveRoom(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	t.Setenv("GOMEMLIMIT", "")
	limitMemory()
	memory.Lock()
	memory.room = 0
	memory.Unlock()
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	ReserveRoom(16 << 20)
	if got := limit(); got != baseMemoryLimit+16<<20 {
		t.Errorf("limit %d with 16 MiB of room, want %d", got, baseMemoryLimit+16<<20)
	}
	ReserveRoom(200 << 20)
	if got := limit(); got != memoryCeiling {
		t.Errorf("limit %d with 216 MiB of room, want the ceiling %d", got, memoryCeiling)
	}
	ReserveMemory(memoryCeiling) // held memory past the ceiling
	if got := limit(); got != baseMemoryLimit+memoryCeiling {
		t.Errorf("limit %d, want what is held, %d, and no room", got, baseMemoryLimit+memoryCeiling)
	}
	ReserveMemory(-memoryCeiling)
	ReserveRoom(-216 << 20)
	if got := limit(); got != baseMemoryLimit {
		t.Errorf("limit %d after the room was given back, want the base %d", got, baseMemoryLimit)
	}
}
