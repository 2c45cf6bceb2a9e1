package sha1dc

import "golang.org/x/sys/cpu"

// accelerated says whether this CPU has what compressSHANI uses: the SHA
// extensions, SSSE3's byte shuffle and SSE4.1's word extract.
var accelerated = hasSHA() && cpu.X86.HasSSSE3 && cpu.X86.HasSSE41

// hasSHA reads CPUID leaf 7's SHA bit, which golang.org/x/sys/cpu does not
// report for x86.
func hasSHA() bool {
	if maxLeaf, _, _, _ := cpuid(0, 0); maxLeaf < 7 {
		return false
	}
	_, ebx, _, _ := cpuid(7, 0)
	return ebx&(1<<29) != 0
}

// cpuid executes the CPUID instruction.
//
//go:noescape
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// compressSHANI compresses every whole block of p into h with the SHA
// extensions, storing each block's starting chaining value at hs (20 bytes
// a block), its message words 32 to 67 into w (80 words a block) and its
// registers after steps 51, 55, 59 and 63 into mid (64 bytes a block).
//
//go:noescape
func compressSHANI(h *[5]uint32, p []byte, w *[80]uint32, hs *[5]uint32, mid *[4][4]uint32)

func compress(h *[5]uint32, p []byte, sc *scratch) {
	if !accelerated {
		compressBlocksGo(h, p, sc)
		return
	}
	compressSHANI(h, p, &sc.w[0], &sc.hs[0], &sc.mid[0])
}
