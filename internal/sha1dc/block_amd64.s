#include "textflag.h"

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// The 16 bytes of a block's quarter reversed: each word big-endian and
// word 0 in the register's top lane, where the SHA instructions want it.
DATA reverse<>+0(SB)/8, $0x08090a0b0c0d0e0f
DATA reverse<>+8(SB)/8, $0x0001020304050607
GLOBL reverse<>(SB), RODATA|NOPTR, $16

// Register use: X0 holds A B C D (A in the top lane), X1 and X2 take turns
// holding E plus the four words of a group of four steps, X3-X6 hold the
// message words of the last four groups, X10 and X11 the chaining value
// the block started from, X7 is for stores. The words stored of each block
// are 32 to 67, what the conditions read; the registers A B C D after steps
// 55 and 63, and four steps before each, go to mid (in the registers' lane
// order, A last), whence the state before steps 58 and 65 that the
// recompressions start from.

// LOAD reads the message words of group g (0-3) from the block.
#define LOAD(g, m) \
	MOVOU (16*g)(SI), m; \
	PSHUFB X15, m

// SAVE writes the message words of group g (4 words) to w, in word order.
#define SAVE(g, m) \
	PSHUFD $0x1b, m, X7; \
	MOVOU X7, (16*g)(R8)

// ROUNDS runs four steps with the words m: E from the A of four steps ago
// (held in e), then the rounds, keeping A B C D for the next group in next.
#define ROUNDS(fn, m, e, next) \
	SHA1NEXTE m, e; \
	MOVO X0, next; \
	SHA1RNDS4 $fn, e, X0

// func compressSHANI(h *[5]uint32, p []byte, w *[80]uint32, hs *[5]uint32, mid *[4][4]uint32)
TEXT ·compressSHANI(SB), NOSPLIT, $0-56
	MOVQ h+0(FP), DI
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), DX
	MOVQ w+32(FP), R8
	MOVQ hs+40(FP), R9
	MOVQ mid+48(FP), R10
	SHRQ $6, DX
	JZ   done

	MOVOU reverse<>(SB), X15
	MOVOU (DI), X0
	PSHUFD $0x1b, X0, X0
	MOVL 16(DI), AX
	MOVD AX, X1
	PSLLDQ $12, X1

loop:
	// The chaining value this block starts from.
	PSHUFD $0x1b, X0, X7
	MOVOU X7, (R9)
	PEXTRD $3, X1, AX
	MOVL AX, 16(R9)
	MOVO X0, X10
	MOVO X1, X11

	// Group 0: steps 0-3.
	LOAD(0, X3)
	PADDD X3, X1
	MOVO X0, X2
	SHA1RNDS4 $0, X1, X0

	// Group 1.
	LOAD(1, X4)
	ROUNDS(0, X4, X2, X1)
	SHA1MSG1 X4, X3

	// Group 2.
	LOAD(2, X5)
	ROUNDS(0, X5, X1, X2)
	SHA1MSG1 X5, X4
	PXOR X5, X3

	// Group 3.
	LOAD(3, X6)
	ROUNDS(0, X6, X2, X1)
	SHA1MSG2 X6, X3
	SHA1MSG1 X6, X5
	PXOR X6, X4

	// Groups 4-19: the words of group g are complete in m; they finish
	// group g+1's (msg2), add to group g+2's and start group g+3's (msg1).
#define GROUP(fn, m, e, next, m1, m2, m3) \
	ROUNDS(fn, m, e, next); \
	SHA1MSG2 m, m1; \
	PXOR m, m2; \
	SHA1MSG1 m, m3

	GROUP(0, X3, X1, X2, X4, X5, X6)   // 4
	GROUP(1, X4, X2, X1, X5, X6, X3)   // 5
	GROUP(1, X5, X1, X2, X6, X3, X4)   // 6
	GROUP(1, X6, X2, X1, X3, X4, X5)   // 7
	SAVE(8, X3)
	GROUP(1, X3, X1, X2, X4, X5, X6)   // 8
	SAVE(9, X4)
	GROUP(1, X4, X2, X1, X5, X6, X3)   // 9
	SAVE(10, X5)
	GROUP(2, X5, X1, X2, X6, X3, X4)   // 10
	SAVE(11, X6)
	GROUP(2, X6, X2, X1, X3, X4, X5)   // 11
	SAVE(12, X3)
	GROUP(2, X3, X1, X2, X4, X5, X6)   // 12
	SAVE(13, X4)
	GROUP(2, X4, X2, X1, X5, X6, X3)   // 13
	MOVOU X0, 0(R10)                   // A B C D before step 56
	MOVOU X1, 16(R10)                  // and four steps before
	SAVE(14, X5)
	GROUP(2, X5, X1, X2, X6, X3, X4)   // 14
	SAVE(15, X6)
	GROUP(3, X6, X2, X1, X3, X4, X5)   // 15
	MOVOU X0, 32(R10)                  // before step 64
	MOVOU X1, 48(R10)
	SAVE(16, X3)
	GROUP(3, X3, X1, X2, X4, X5, X6)   // 16: group 19's msg1 is its last
	ROUNDS(3, X4, X2, X1)              // 17
	SHA1MSG2 X4, X5
	PXOR X4, X6
	ROUNDS(3, X5, X1, X2)              // 18
	SHA1MSG2 X5, X6
	ROUNDS(3, X6, X2, X1)              // 19

	// E: the A of four steps ago, rotated, plus the E the block started
	// from; A B C D plus theirs.
	SHA1NEXTE X11, X1
	PADDD X10, X0

	ADDQ $64, SI
	ADDQ $320, R8
	ADDQ $20, R9
	ADDQ $64, R10
	DECQ DX
	JNZ  loop

	PSHUFD $0x1b, X0, X0
	MOVOU X0, (DI)
	PEXTRD $3, X1, AX
	MOVL AX, 16(DI)

done:
	RET
