package batch

import (
	"encoding/binary"
	"testing"
)

func TestSuperblockFastCommit(t *testing.T) {
	sb := func(magic uint16, compat uint32) []byte {
		b := make([]byte, superblockSize)
		binary.LittleEndian.PutUint16(b[sbMagicAt:], magic)
		binary.LittleEndian.PutUint32(b[sbFeatureCompatAt:], compat)
		return b
	}
	tests := []struct {
		name   string
		sb     []byte
		on, ok bool
	}{
		{"journal and fast_commit", sb(extMagic, compatHasJournal|compatFastCommit|0x38), true, true},
		{"journal only", sb(extMagic, compatHasJournal|0x38), false, true},
		{"fast_commit without a journal", sb(extMagic, compatFastCommit), false, true},
		{"not ext", sb(0x1234, compatHasJournal|compatFastCommit), false, false},
		{"short", sb(extMagic, compatHasJournal|compatFastCommit)[:sbFeatureCompatAt+3], false, false},
	}
	for _, tt := range tests {
		if on, ok := superblockFastCommit(tt.sb); on != tt.on || ok != tt.ok {
			t.Errorf("%s: on %v ok %v, want %v %v", tt.name, on, ok, tt.on, tt.ok)
		}
	}
}
