#include "textflag.h"

// func framePCs(buf *[framePCsLen]uintptr) int
//
// framePCs has no frame of its own, so BP is its caller's frame pointer:
// it follows the frame-pointer chain from there, storing each frame's
// return address, and returns how many it stored.
TEXT ·framePCs(SB),NOSPLIT,$0-16
	MOVQ buf+0(FP), DI
	MOVQ BP, SI
	XORQ CX, CX
loop:
	CMPQ CX, $8
	JGE done
	TESTQ SI, SI
	JZ done
	MOVQ 8(SI), AX
	TESTQ AX, AX
	JZ done
	MOVQ AX, (DI)(CX*8)
	MOVQ 0(SI), SI
	INCQ CX
	JMP loop
done:
	MOVQ CX, ret+8(FP)
	RET
