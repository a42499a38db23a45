#include "textflag.h"

// func kernelSSE6x16(a *float32, b *float32, k int, c *float32, ldc int, bias *float32, flags int)
//
// The 6×16 tile of kernelPacked6x16 with SSE only (every amd64 processor
// has it), for processors without AVX2: B panel float32, C rows ldc bytes
// apart. Four-lane registers hold six rows by sixteen columns in 24, and
// there are 16, so the tile is done as two 6×8 halves: X0–X11 accumulate
// (row r in X2r, X2r+1), X12–X13 hold eight values of a B row, X14–X15
// a broadcast A value and its product (no FMA: multiply, then add).
TEXT ·kernelSSE6x16(SB), NOSPLIT, $0-56
	MOVQ c+24(FP), DX
	MOVQ bias+40(FP), R8
	MOVQ $0, R10 // byte offset of this half's columns: 0, then 32

half:
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	ADDQ R10, BX
	MOVQ k+16(FP), CX
	MOVQ ldc+32(FP), DI
	MOVQ flags+48(FP), R9
	LEAQ (DX)(R10*1), SI // row 0 of C, this half

	MOVUPS (R8)(R10*1), X0
	MOVUPS 16(R8)(R10*1), X1
	MOVAPS X0, X2
	MOVAPS X1, X3
	MOVAPS X0, X4
	MOVAPS X1, X5
	MOVAPS X0, X6
	MOVAPS X1, X7
	MOVAPS X0, X8
	MOVAPS X1, X9
	MOVAPS X0, X10
	MOVAPS X1, X11

	TESTQ $1, R9
	JZ    sseloopcheck
	MOVQ  SI, R11
	MOVUPS (R11), X12
	MOVUPS 16(R11), X13
	ADDPS X12, X0
	ADDPS X13, X1
	ADDQ DI, R11
	MOVUPS (R11), X12
	MOVUPS 16(R11), X13
	ADDPS X12, X2
	ADDPS X13, X3
	ADDQ DI, R11
	MOVUPS (R11), X12
	MOVUPS 16(R11), X13
	ADDPS X12, X4
	ADDPS X13, X5
	ADDQ DI, R11
	MOVUPS (R11), X12
	MOVUPS 16(R11), X13
	ADDPS X12, X6
	ADDPS X13, X7
	ADDQ DI, R11
	MOVUPS (R11), X12
	MOVUPS 16(R11), X13
	ADDPS X12, X8
	ADDPS X13, X9
	ADDQ DI, R11
	MOVUPS (R11), X12
	MOVUPS 16(R11), X13
	ADDPS X12, X10
	ADDPS X13, X11

sseloopcheck:
	TESTQ CX, CX
	JZ    ssedone

sseloop:
	MOVUPS (BX), X12
	MOVUPS 16(BX), X13
	MOVSS  0(AX), X14
	SHUFPS $0, X14, X14
	MOVAPS X14, X15
	MULPS  X12, X14
	ADDPS  X14, X0
	MULPS  X13, X15
	ADDPS  X15, X1
	MOVSS  4(AX), X14
	SHUFPS $0, X14, X14
	MOVAPS X14, X15
	MULPS  X12, X14
	ADDPS  X14, X2
	MULPS  X13, X15
	ADDPS  X15, X3
	MOVSS  8(AX), X14
	SHUFPS $0, X14, X14
	MOVAPS X14, X15
	MULPS  X12, X14
	ADDPS  X14, X4
	MULPS  X13, X15
	ADDPS  X15, X5
	MOVSS  12(AX), X14
	SHUFPS $0, X14, X14
	MOVAPS X14, X15
	MULPS  X12, X14
	ADDPS  X14, X6
	MULPS  X13, X15
	ADDPS  X15, X7
	MOVSS  16(AX), X14
	SHUFPS $0, X14, X14
	MOVAPS X14, X15
	MULPS  X12, X14
	ADDPS  X14, X8
	MULPS  X13, X15
	ADDPS  X15, X9
	MOVSS  20(AX), X14
	SHUFPS $0, X14, X14
	MOVAPS X14, X15
	MULPS  X12, X14
	ADDPS  X14, X10
	MULPS  X13, X15
	ADDPS  X15, X11
	ADDQ $24, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  sseloop

ssedone:
	TESTQ $2, R9
	JZ    ssestore
	XORPS X14, X14
	MAXPS X14, X0
	MAXPS X14, X1
	MAXPS X14, X2
	MAXPS X14, X3
	MAXPS X14, X4
	MAXPS X14, X5
	MAXPS X14, X6
	MAXPS X14, X7
	MAXPS X14, X8
	MAXPS X14, X9
	MAXPS X14, X10
	MAXPS X14, X11

ssestore:
	MOVUPS X0, (SI)
	MOVUPS X1, 16(SI)
	ADDQ DI, SI
	MOVUPS X2, (SI)
	MOVUPS X3, 16(SI)
	ADDQ DI, SI
	MOVUPS X4, (SI)
	MOVUPS X5, 16(SI)
	ADDQ DI, SI
	MOVUPS X6, (SI)
	MOVUPS X7, 16(SI)
	ADDQ DI, SI
	MOVUPS X8, (SI)
	MOVUPS X9, 16(SI)
	ADDQ DI, SI
	MOVUPS X10, (SI)
	MOVUPS X11, 16(SI)

	ADDQ $32, R10
	CMPQ R10, $64
	JLT  half
	RET
