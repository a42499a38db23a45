// NEON kernels for arm64. Go's assembler has no mnemonics for some of the
// vector instructions used here (FADD, FMAX, FMUL, FSUB, FCVTL, FRINTN,
// FCVTZS, FADDP on vectors), so they are WORD encodings, each with its
// instruction in a comment; they were checked against GNU as, and
// scripts/test-arm64 runs these kernels under qemu-aarch64.

#include "textflag.h"

// The two matrix kernels differ only in how a row of B is loaded, so what
// they share is written once, as macros.

// KERNEL_START loads the arguments, fills the accumulators V0–V23 (row r
// in V4r–V4r+3) with the bias, adds C when flags&1, and goes on at skip.
#define KERNEL_START(skip) \
	MOVD a+0(FP), R0; \
	MOVD b+16(FP), R1; \
	MOVD k+24(FP), R2; \
	MOVD c+32(FP), R3; \
	MOVD ldc+40(FP), R4; \
	MOVD bias+48(FP), R5; \
	MOVD flags+56(FP), R6; \
	VLD1 (R5), [V0.S4, V1.S4, V2.S4, V3.S4]; \
	VMOV V0.B16, V4.B16; \
	VMOV V1.B16, V5.B16; \
	VMOV V2.B16, V6.B16; \
	VMOV V3.B16, V7.B16; \
	VMOV V0.B16, V8.B16; \
	VMOV V1.B16, V9.B16; \
	VMOV V2.B16, V10.B16; \
	VMOV V3.B16, V11.B16; \
	VMOV V0.B16, V12.B16; \
	VMOV V1.B16, V13.B16; \
	VMOV V2.B16, V14.B16; \
	VMOV V3.B16, V15.B16; \
	VMOV V0.B16, V16.B16; \
	VMOV V1.B16, V17.B16; \
	VMOV V2.B16, V18.B16; \
	VMOV V3.B16, V19.B16; \
	VMOV V0.B16, V20.B16; \
	VMOV V1.B16, V21.B16; \
	VMOV V2.B16, V22.B16; \
	VMOV V3.B16, V23.B16; \
	TBZ $0, R6, skip; \
	MOVD R3, R7; \
	VLD1 (R7), [V24.S4, V25.S4, V26.S4, V27.S4]; \
	WORD $0x4e38d400 /* FADD V0.4S, V0.4S, V24.4S */; \
	WORD $0x4e39d421 /* FADD V1.4S, V1.4S, V25.4S */; \
	WORD $0x4e3ad442 /* FADD V2.4S, V2.4S, V26.4S */; \
	WORD $0x4e3bd463 /* FADD V3.4S, V3.4S, V27.4S */; \
	ADD R4, R7; \
	VLD1 (R7), [V24.S4, V25.S4, V26.S4, V27.S4]; \
	WORD $0x4e38d484 /* FADD V4.4S, V4.4S, V24.4S */; \
	WORD $0x4e39d4a5 /* FADD V5.4S, V5.4S, V25.4S */; \
	WORD $0x4e3ad4c6 /* FADD V6.4S, V6.4S, V26.4S */; \
	WORD $0x4e3bd4e7 /* FADD V7.4S, V7.4S, V27.4S */; \
	ADD R4, R7; \
	VLD1 (R7), [V24.S4, V25.S4, V26.S4, V27.S4]; \
	WORD $0x4e38d508 /* FADD V8.4S, V8.4S, V24.4S */; \
	WORD $0x4e39d529 /* FADD V9.4S, V9.4S, V25.4S */; \
	WORD $0x4e3ad54a /* FADD V10.4S, V10.4S, V26.4S */; \
	WORD $0x4e3bd56b /* FADD V11.4S, V11.4S, V27.4S */; \
	ADD R4, R7; \
	VLD1 (R7), [V24.S4, V25.S4, V26.S4, V27.S4]; \
	WORD $0x4e38d58c /* FADD V12.4S, V12.4S, V24.4S */; \
	WORD $0x4e39d5ad /* FADD V13.4S, V13.4S, V25.4S */; \
	WORD $0x4e3ad5ce /* FADD V14.4S, V14.4S, V26.4S */; \
	WORD $0x4e3bd5ef /* FADD V15.4S, V15.4S, V27.4S */; \
	ADD R4, R7; \
	VLD1 (R7), [V24.S4, V25.S4, V26.S4, V27.S4]; \
	WORD $0x4e38d610 /* FADD V16.4S, V16.4S, V24.4S */; \
	WORD $0x4e39d631 /* FADD V17.4S, V17.4S, V25.4S */; \
	WORD $0x4e3ad652 /* FADD V18.4S, V18.4S, V26.4S */; \
	WORD $0x4e3bd673 /* FADD V19.4S, V19.4S, V27.4S */; \
	ADD R4, R7; \
	VLD1 (R7), [V24.S4, V25.S4, V26.S4, V27.S4]; \
	WORD $0x4e38d694 /* FADD V20.4S, V20.4S, V24.4S */; \
	WORD $0x4e39d6b5 /* FADD V21.4S, V21.4S, V25.4S */; \
	WORD $0x4e3ad6d6 /* FADD V22.4S, V22.4S, V26.4S */; \
	WORD $0x4e3bd6f7 /* FADD V23.4S, V23.4S, V27.4S */

// KERNEL_FMA multiplies the B row in V24–V27 by the next six values of A
// (broadcast in turn into V28 and V29) into the accumulators.
#define KERNEL_FMA \
	VLD1R.P 4(R0), [V28.S4]; \
	VFMLA V24.S4, V28.S4, V0.S4; \
	VFMLA V25.S4, V28.S4, V1.S4; \
	VFMLA V26.S4, V28.S4, V2.S4; \
	VFMLA V27.S4, V28.S4, V3.S4; \
	VLD1R.P 4(R0), [V29.S4]; \
	VFMLA V24.S4, V29.S4, V4.S4; \
	VFMLA V25.S4, V29.S4, V5.S4; \
	VFMLA V26.S4, V29.S4, V6.S4; \
	VFMLA V27.S4, V29.S4, V7.S4; \
	VLD1R.P 4(R0), [V28.S4]; \
	VFMLA V24.S4, V28.S4, V8.S4; \
	VFMLA V25.S4, V28.S4, V9.S4; \
	VFMLA V26.S4, V28.S4, V10.S4; \
	VFMLA V27.S4, V28.S4, V11.S4; \
	VLD1R.P 4(R0), [V29.S4]; \
	VFMLA V24.S4, V29.S4, V12.S4; \
	VFMLA V25.S4, V29.S4, V13.S4; \
	VFMLA V26.S4, V29.S4, V14.S4; \
	VFMLA V27.S4, V29.S4, V15.S4; \
	VLD1R.P 4(R0), [V28.S4]; \
	VFMLA V24.S4, V28.S4, V16.S4; \
	VFMLA V25.S4, V28.S4, V17.S4; \
	VFMLA V26.S4, V28.S4, V18.S4; \
	VFMLA V27.S4, V28.S4, V19.S4; \
	VLD1R.P 4(R0), [V29.S4]; \
	VFMLA V24.S4, V29.S4, V20.S4; \
	VFMLA V25.S4, V29.S4, V21.S4; \
	VFMLA V26.S4, V29.S4, V22.S4; \
	VFMLA V27.S4, V29.S4, V23.S4

// RELU16 clamps the sums V0–V15 at zero (V31, which must be zero).
#define RELU16 \
	WORD $0x4e3ff400 /* FMAX V0.4S, V0.4S, V31.4S */; \
	WORD $0x4e3ff421 /* FMAX V1.4S, V1.4S, V31.4S */; \
	WORD $0x4e3ff442 /* FMAX V2.4S, V2.4S, V31.4S */; \
	WORD $0x4e3ff463 /* FMAX V3.4S, V3.4S, V31.4S */; \
	WORD $0x4e3ff484 /* FMAX V4.4S, V4.4S, V31.4S */; \
	WORD $0x4e3ff4a5 /* FMAX V5.4S, V5.4S, V31.4S */; \
	WORD $0x4e3ff4c6 /* FMAX V6.4S, V6.4S, V31.4S */; \
	WORD $0x4e3ff4e7 /* FMAX V7.4S, V7.4S, V31.4S */; \
	WORD $0x4e3ff508 /* FMAX V8.4S, V8.4S, V31.4S */; \
	WORD $0x4e3ff529 /* FMAX V9.4S, V9.4S, V31.4S */; \
	WORD $0x4e3ff54a /* FMAX V10.4S, V10.4S, V31.4S */; \
	WORD $0x4e3ff56b /* FMAX V11.4S, V11.4S, V31.4S */; \
	WORD $0x4e3ff58c /* FMAX V12.4S, V12.4S, V31.4S */; \
	WORD $0x4e3ff5ad /* FMAX V13.4S, V13.4S, V31.4S */; \
	WORD $0x4e3ff5ce /* FMAX V14.4S, V14.4S, V31.4S */; \
	WORD $0x4e3ff5ef /* FMAX V15.4S, V15.4S, V31.4S */

// KERNEL_FINISH clamps at zero when flags&2 (else goes to skip, which
// must label KERNEL_STORE).
#define KERNEL_FINISH(skip) \
	TBZ $1, R6, skip; \
	VEOR V31.B16, V31.B16, V31.B16; \
	RELU16; \
	WORD $0x4e3ff610 /* FMAX V16.4S, V16.4S, V31.4S */; \
	WORD $0x4e3ff631 /* FMAX V17.4S, V17.4S, V31.4S */; \
	WORD $0x4e3ff652 /* FMAX V18.4S, V18.4S, V31.4S */; \
	WORD $0x4e3ff673 /* FMAX V19.4S, V19.4S, V31.4S */; \
	WORD $0x4e3ff694 /* FMAX V20.4S, V20.4S, V31.4S */; \
	WORD $0x4e3ff6b5 /* FMAX V21.4S, V21.4S, V31.4S */; \
	WORD $0x4e3ff6d6 /* FMAX V22.4S, V22.4S, V31.4S */; \
	WORD $0x4e3ff6f7 /* FMAX V23.4S, V23.4S, V31.4S */

// KERNEL_STORE writes the accumulators to the six rows of C and returns.
#define KERNEL_STORE \
	VST1 [V0.S4, V1.S4, V2.S4, V3.S4], (R3); \
	ADD R4, R3; \
	VST1 [V4.S4, V5.S4, V6.S4, V7.S4], (R3); \
	ADD R4, R3; \
	VST1 [V8.S4, V9.S4, V10.S4, V11.S4], (R3); \
	ADD R4, R3; \
	VST1 [V12.S4, V13.S4, V14.S4, V15.S4], (R3); \
	ADD R4, R3; \
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (R3); \
	ADD R4, R3; \
	VST1 [V20.S4, V21.S4, V22.S4, V23.S4], (R3); \
	RET

// func kernelPacked6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32, flags int)
//
// C[6×16] = (flags&1 ? C : 0) + bias + A[6×k]·B[k×16], then max(·,0) when
// flags&2, as the amd64 kernel. A is packed (k groups of six values), B is
// one panel of k rows of 16 floats. C rows are ldc bytes apart. V0–V23
// hold the 6×16 accumulators, V24–V27 one row of B, V28–V29 a broadcast A
// value.
TEXT ·kernelPacked6x16(SB), NOSPLIT, $0-64
	KERNEL_START(kernelPacked6x16k)

kernelPacked6x16k:
	CBZ R2, kernelPacked6x16done

kernelPacked6x16loop:
	VLD1.P 64(R1), [V24.S4, V25.S4, V26.S4, V27.S4]
	KERNEL_FMA
	SUBS $1, R2
	BNE  kernelPacked6x16loop

kernelPacked6x16done:
	KERNEL_FINISH(kernelPacked6x16store)

kernelPacked6x16store:
	KERNEL_STORE

// func kernelHalf6x16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32, flags int)
//
// As kernelPacked6x16, but B holds float16 values, widened with FCVTL as
// they load: V28–V29 take the float16 row before the broadcast A values.
TEXT ·kernelHalf6x16(SB), NOSPLIT, $0-64
	KERNEL_START(kernelHalf6x16k)

kernelHalf6x16k:
	CBZ R2, kernelHalf6x16done

kernelHalf6x16loop:
	VLD1.P 32(R1), [V28.H8, V29.H8]
	WORD $0xe217b98 // FCVTL V24.4S, V28.4H
	WORD $0x4e217b99 // FCVTL2 V25.4S, V28.8H
	WORD $0xe217bba // FCVTL V26.4S, V29.4H
	WORD $0x4e217bbb // FCVTL2 V27.4S, V29.8H
	KERNEL_FMA
	SUBS $1, R2
	BNE  kernelHalf6x16loop

kernelHalf6x16done:
	KERNEL_FINISH(kernelHalf6x16store)

kernelHalf6x16store:
	KERNEL_STORE

// func expShift(row *float32, n int, m, scale float32) float32
//
// row[i] = e^((row[i]-m)·scale) for i < n (n a multiple of 4, arguments
// ≤ 0), returning the sum: the Cephes polynomial of exp32, with the fused
// multiply-adds where the amd64 kernel has them.
TEXT ·expShift(SB), NOSPLIT, $0-28
	MOVD  row+0(FP), R0
	MOVD  n+8(FP), R1
	FMOVS m+16(FP), F15
	VDUP  V15.S[0], V15.S4
	FMOVS scale+20(FP), F14
	VDUP  V14.S[0], V14.S4
	MOVW  $0xc2ae0000, R2 // -87: below it e^x underflows
	VDUP  R2, V13.S4
	MOVW  $0x3fb8aa3b, R2 // log2(e)
	VDUP  R2, V12.S4
	MOVW  $0x3f318000, R2 // ln 2, high part
	VDUP  R2, V11.S4
	MOVW  $0xb95e8083, R2 // ln 2, low part
	VDUP  R2, V10.S4
	MOVW  $0x3f800000, R2 // 1
	VDUP  R2, V9.S4
	MOVW  $127, R2
	VDUP  R2, V8.S4
	MOVW  $0x39506967, R2 // p0
	VDUP  R2, V16.S4
	MOVW  $0x3ab743ce, R2 // p1
	VDUP  R2, V17.S4
	MOVW  $0x3c088908, R2 // p2
	VDUP  R2, V18.S4
	MOVW  $0x3d2aa9c1, R2 // p3
	VDUP  R2, V19.S4
	MOVW  $0x3e2aaaaa, R2 // p4
	VDUP  R2, V20.S4
	MOVW  $0x3f000000, R2 // p5
	VDUP  R2, V21.S4
	VEOR  V7.B16, V7.B16, V7.B16 // sum
	LSR   $2, R1
	CBZ   R1, expdone

exploop:
	VLD1 (R0), [V0.S4]
	WORD $0x4eafd400 // FSUB V0.4S, V0.4S, V15.4S
	WORD $0x6e2edc00 // FMUL V0.4S, V0.4S, V14.4S
	WORD $0x4e2df400 // FMAX V0.4S, V0.4S, V13.4S
	WORD $0x6e2cdc01 // FMUL V1.4S, V0.4S, V12.4S
	WORD $0x4e218821 // FRINTN V1.4S, V1.4S
	VFMLS V11.S4, V1.S4, V0.S4 // x -= n·c1
	VFMLS V10.S4, V1.S4, V0.S4 // x -= n·c2
	VMOV V17.B16, V2.B16
	VFMLA V16.S4, V0.S4, V2.S4 // p = p0·x + p1
	VMOV V18.B16, V3.B16
	VFMLA V2.S4, V0.S4, V3.S4
	VMOV V3.B16, V2.B16
	VMOV V19.B16, V3.B16
	VFMLA V2.S4, V0.S4, V3.S4
	VMOV V3.B16, V2.B16
	VMOV V20.B16, V3.B16
	VFMLA V2.S4, V0.S4, V3.S4
	VMOV V3.B16, V2.B16
	VMOV V21.B16, V3.B16
	VFMLA V2.S4, V0.S4, V3.S4
	VMOV V3.B16, V2.B16
	WORD $0x6e20dc03 // FMUL V3.4S, V0.4S, V0.4S
	VMOV V0.B16, V4.B16
	VFMLA V2.S4, V3.S4, V4.S4 // p·x² + x
	WORD $0x4e29d482 // FADD V2.4S, V4.4S, V9.4S
	WORD $0x4ea1b821 // FCVTZS V1.4S, V1.4S
	VADD V8.S4, V1.S4, V1.S4
	VSHL $23, V1.S4, V1.S4
	WORD $0x6e21dc42 // FMUL V2.4S, V2.4S, V1.4S
	VST1.P [V2.S4], 16(R0)
	WORD $0x4e22d4e7 // FADD V7.4S, V7.4S, V2.4S
	SUBS $1, R1
	BNE  exploop

expdone:
	WORD $0x6e27d4e7 // FADDP V7.4S, V7.4S, V7.4S
	WORD $0x7e30d8e0 // FADDP S0, V7.2S
	FMOVS F0, ret+24(FP)
	RET

// SPARSE_PANEL adds the float16 weights R11 bytes into the panel at base,
// widened, times the value in V22 into the sums a0–a3.
#define SPARSE_PANEL(base, a0, a1, a2, a3) \
	ADD R11, base, R12; \
	VLD1 (R12), [V16.H8, V17.H8]; \
	WORD $0xe217a12 /* FCVTL V18.4S, V16.4H */; \
	WORD $0x4e217a13 /* FCVTL2 V19.4S, V16.8H */; \
	WORD $0xe217a34 /* FCVTL V20.4S, V17.4H */; \
	WORD $0x4e217a35 /* FCVTL2 V21.4S, V17.8H */; \
	VFMLA V18.S4, V22.S4, a0; \
	VFMLA V19.S4, V22.S4, a1; \
	VFMLA V20.S4, V22.S4, a2; \
	VFMLA V21.S4, V22.S4, a3

// func sparseHalf64(out *float32, w *uint16, panel int, idx *int32, val *float32, nnz int, bias *float32, flags int)
//
// As the amd64 kernel: out[0:64] = (flags&1 ? out : 0) + bias +
// Σ val[t]·W[idx[t]][0:64], then max(·,0) when flags&2, over the nnz
// nonzero values of one input row. W is four float16 panels of 16 columns,
// panel bytes apart. V0–V15 hold the 64 sums, V16–V17 a panel row's
// float16 weights, V18–V21 the same widened, V22 the broadcast value.
TEXT ·sparseHalf64(SB), NOSPLIT, $0-64
	MOVD out+0(FP), R0
	MOVD w+8(FP), R1
	MOVD panel+16(FP), R2
	MOVD idx+24(FP), R3
	MOVD val+32(FP), R4
	MOVD nnz+40(FP), R5
	MOVD bias+48(FP), R6
	MOVD flags+56(FP), R7
	ADD  R2, R1, R8
	ADD  R2, R8, R9
	ADD  R2, R9, R10
	VLD1.P 64(R6), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R6), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R6), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1 (R6), [V12.S4, V13.S4, V14.S4, V15.S4]
	TBZ  $0, R7, sparseloopcheck
	MOVD R0, R11
	VLD1.P 64(R11), [V16.S4, V17.S4, V18.S4, V19.S4]
	WORD $0x4e30d400 // FADD V0.4S, V0.4S, V16.4S
	WORD $0x4e31d421 // FADD V1.4S, V1.4S, V17.4S
	WORD $0x4e32d442 // FADD V2.4S, V2.4S, V18.4S
	WORD $0x4e33d463 // FADD V3.4S, V3.4S, V19.4S
	VLD1.P 64(R11), [V16.S4, V17.S4, V18.S4, V19.S4]
	WORD $0x4e30d484 // FADD V4.4S, V4.4S, V16.4S
	WORD $0x4e31d4a5 // FADD V5.4S, V5.4S, V17.4S
	WORD $0x4e32d4c6 // FADD V6.4S, V6.4S, V18.4S
	WORD $0x4e33d4e7 // FADD V7.4S, V7.4S, V19.4S
	VLD1.P 64(R11), [V16.S4, V17.S4, V18.S4, V19.S4]
	WORD $0x4e30d508 // FADD V8.4S, V8.4S, V16.4S
	WORD $0x4e31d529 // FADD V9.4S, V9.4S, V17.4S
	WORD $0x4e32d54a // FADD V10.4S, V10.4S, V18.4S
	WORD $0x4e33d56b // FADD V11.4S, V11.4S, V19.4S
	VLD1.P 64(R11), [V16.S4, V17.S4, V18.S4, V19.S4]
	WORD $0x4e30d58c // FADD V12.4S, V12.4S, V16.4S
	WORD $0x4e31d5ad // FADD V13.4S, V13.4S, V17.4S
	WORD $0x4e32d5ce // FADD V14.4S, V14.4S, V18.4S
	WORD $0x4e33d5ef // FADD V15.4S, V15.4S, V19.4S

sparseloopcheck:
	CBZ R5, sparsedone

sparseloop:
	MOVWU.P 4(R3), R11
	LSL  $1, R11 // bytes into a panel
	VLD1R.P 4(R4), [V22.S4]
	SPARSE_PANEL(R1, V0.S4, V1.S4, V2.S4, V3.S4)
	SPARSE_PANEL(R8, V4.S4, V5.S4, V6.S4, V7.S4)
	SPARSE_PANEL(R9, V8.S4, V9.S4, V10.S4, V11.S4)
	SPARSE_PANEL(R10, V12.S4, V13.S4, V14.S4, V15.S4)
	SUBS $1, R5
	BNE  sparseloop

sparsedone:
	TBZ $1, R7, sparsestore
	VEOR V31.B16, V31.B16, V31.B16
	RELU16

sparsestore:
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)
	VST1.P [V8.S4, V9.S4, V10.S4, V11.S4], 64(R0)
	VST1 [V12.S4, V13.S4, V14.S4, V15.S4], (R0)
	RET
