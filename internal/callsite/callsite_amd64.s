#include "textflag.h"

// func Return(pcs *[2]uintptr)
//
// Return has no frame of its own, so BP is its caller's frame pointer:
// 8(BP) is the caller's return address, 0(BP) the caller's caller's frame
// pointer, whose +8 is that function's return address.
TEXT ·Return(SB),NOSPLIT,$0-8
	MOVQ pcs+0(FP), DI
	MOVQ BP, SI
	MOVQ $0, (DI)
	MOVQ $0, 8(DI)
	TESTQ SI, SI
	JZ done
	MOVQ 8(SI), AX
	MOVQ AX, (DI)
	MOVQ 0(SI), SI
	TESTQ SI, SI
	JZ done
	MOVQ 8(SI), AX
	MOVQ AX, 8(DI)
done:
	RET

// func Walk(pcs *[6]uintptr) (n int, hash uint64)
TEXT ·Walk(SB),NOSPLIT,$0-24
	MOVQ $6, R9
	JMP walk<>(SB)

// func WalkLong(pcs *[16]uintptr) (n int, hash uint64)
TEXT ·WalkLong(SB),NOSPLIT,$0-24
	MOVQ $16, R9
	JMP walk<>(SB)

// walk is Walk's and WalkLong's body, entered by a jump, so that BP is
// still their caller's frame pointer and the arguments theirs: it
// follows the frame-pointer chain from that frame, storing each frame's
// return address, until the chain ends or R9 addresses are stored. The
// hash rotates and folds in each address as it is loaded, in the shadow
// of the chain's next load, so the caller need not load them back.
TEXT walk<>(SB),NOSPLIT,$0-24
	MOVQ pcs+0(FP), DI
	MOVQ BP, SI
	XORQ CX, CX
	XORQ R8, R8
loop:
	CMPQ CX, R9
	JGE walked
	TESTQ SI, SI
	JZ walked
	MOVQ 8(SI), AX
	TESTQ AX, AX
	JZ walked
	MOVQ AX, (DI)(CX*8)
	MOVQ 0(SI), SI
	ROLQ $7, R8
	XORQ AX, R8
	INCQ CX
	JMP loop
walked:
	MOVQ CX, n+8(FP)
	MOVQ R8, hash+16(FP)
	RET
