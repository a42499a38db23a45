#include "textflag.h"

// The two float matrix kernels differ only in how a row of B is loaded, so
// what they (and the int8 kernels) share is written once, as macros.

// ADD_C adds C (row 0 at DX, row 3 at R11, rows DI bytes apart) to the
// twelve accumulators when flags&1 (in R9), else goes on at skip.
#define ADD_C(skip) \
	TESTQ $1, R9; \
	JZ skip; \
	VADDPS (DX), Y0, Y0; \
	VADDPS 32(DX), Y1, Y1; \
	VADDPS (DX)(DI*1), Y2, Y2; \
	VADDPS 32(DX)(DI*1), Y3, Y3; \
	VADDPS (DX)(DI*2), Y4, Y4; \
	VADDPS 32(DX)(DI*2), Y5, Y5; \
	VADDPS (R11), Y6, Y6; \
	VADDPS 32(R11), Y7, Y7; \
	VADDPS (R11)(DI*1), Y8, Y8; \
	VADDPS 32(R11)(DI*1), Y9, Y9; \
	VADDPS (R11)(DI*2), Y10, Y10; \
	VADDPS 32(R11)(DI*2), Y11, Y11

// KERNEL_START loads the arguments (R11 = row 3 of C), fills the twelve
// accumulators Y0–Y11 (row r in Y2r, Y2r+1) with the bias, adds C when
// flags&1, and goes on at skip.
#define KERNEL_START(skip) \
	MOVQ a+0(FP), AX; \
	MOVQ lda+8(FP), SI; \
	MOVQ b+16(FP), BX; \
	MOVQ k+24(FP), CX; \
	MOVQ c+32(FP), DX; \
	MOVQ ldc+40(FP), DI; \
	MOVQ bias+48(FP), R8; \
	MOVQ flags+56(FP), R9; \
	LEAQ (DX)(DI*2), R11; \
	ADDQ DI, R11 /* R11 = row 3 of C */; \
	VMOVUPS (R8), Y0; \
	VMOVUPS 32(R8), Y1; \
	VMOVAPS Y0, Y2; \
	VMOVAPS Y1, Y3; \
	VMOVAPS Y0, Y4; \
	VMOVAPS Y1, Y5; \
	VMOVAPS Y0, Y6; \
	VMOVAPS Y1, Y7; \
	VMOVAPS Y0, Y8; \
	VMOVAPS Y1, Y9; \
	VMOVAPS Y0, Y10; \
	VMOVAPS Y1, Y11; \
	ADD_C(skip)

// KERNEL_SPLIT counts the k loop: R12 steps of four, then CX of one, going
// to tail when there is no step of four.
#define KERNEL_SPLIT(tail) \
	MOVQ CX, R12; \
	SHRQ $2, R12 /* R12 = k/4 unrolled steps */; \
	ANDQ $3, CX /* CX = k%4 single steps */; \
	TESTQ R12, R12; \
	JZ tail

// KERNEL_FMA multiplies the B row in Y12:Y13 by the six values of A at
// off(AX) (broadcast in turn into Y14 and Y15) into the accumulators.
#define KERNEL_FMA(off) \
	VBROADCASTSS (off+0)(AX), Y14; \
	VFMADD231PS Y12, Y14, Y0; \
	VFMADD231PS Y13, Y14, Y1; \
	VBROADCASTSS (off+4)(AX), Y15; \
	VFMADD231PS Y12, Y15, Y2; \
	VFMADD231PS Y13, Y15, Y3; \
	VBROADCASTSS (off+8)(AX), Y14; \
	VFMADD231PS Y12, Y14, Y4; \
	VFMADD231PS Y13, Y14, Y5; \
	VBROADCASTSS (off+12)(AX), Y15; \
	VFMADD231PS Y12, Y15, Y6; \
	VFMADD231PS Y13, Y15, Y7; \
	VBROADCASTSS (off+16)(AX), Y14; \
	VFMADD231PS Y12, Y14, Y8; \
	VFMADD231PS Y13, Y14, Y9; \
	VBROADCASTSS (off+20)(AX), Y15; \
	VFMADD231PS Y12, Y15, Y10; \
	VFMADD231PS Y13, Y15, Y11

// KERNEL_FINISH clamps at zero when flags&2 (else goes to skip, which must
// label KERNEL_STORE).
#define KERNEL_FINISH(skip) \
	TESTQ $2, R9; \
	JZ skip; \
	VXORPS Y14, Y14, Y14; \
	VMAXPS Y14, Y0, Y0; \
	VMAXPS Y14, Y1, Y1; \
	VMAXPS Y14, Y2, Y2; \
	VMAXPS Y14, Y3, Y3; \
	VMAXPS Y14, Y4, Y4; \
	VMAXPS Y14, Y5, Y5; \
	VMAXPS Y14, Y6, Y6; \
	VMAXPS Y14, Y7, Y7; \
	VMAXPS Y14, Y8, Y8; \
	VMAXPS Y14, Y9, Y9; \
	VMAXPS Y14, Y10, Y10; \
	VMAXPS Y14, Y11, Y11

// KERNEL_STORE writes the accumulators to the six rows of C and returns.
#define KERNEL_STORE \
	VMOVUPS Y0, (DX); \
	VMOVUPS Y1, 32(DX); \
	VMOVUPS Y2, (DX)(DI*1); \
	VMOVUPS Y3, 32(DX)(DI*1); \
	VMOVUPS Y4, (DX)(DI*2); \
	VMOVUPS Y5, 32(DX)(DI*2); \
	VMOVUPS Y6, (R11); \
	VMOVUPS Y7, 32(R11); \
	VMOVUPS Y8, (R11)(DI*1); \
	VMOVUPS Y9, 32(R11)(DI*1); \
	VMOVUPS Y10, (R11)(DI*2); \
	VMOVUPS Y11, 32(R11)(DI*2); \
	VZEROUPPER; \
	RET

// INT8_START loads the arguments the k loop uses, zeroes the twelve int32
// accumulators and counts the loop: R12 steps of two groups, then CX of
// one, going to tail when there is no step of two.
#define INT8_START(tail) \
	MOVQ a+0(FP), AX; \
	MOVQ b+8(FP), BX; \
	MOVQ k4+16(FP), CX; \
	VPXOR Y0, Y0, Y0; \
	VPXOR Y1, Y1, Y1; \
	VPXOR Y2, Y2, Y2; \
	VPXOR Y3, Y3, Y3; \
	VPXOR Y4, Y4, Y4; \
	VPXOR Y5, Y5, Y5; \
	VPXOR Y6, Y6, Y6; \
	VPXOR Y7, Y7, Y7; \
	VPXOR Y8, Y8, Y8; \
	VPXOR Y9, Y9, Y9; \
	VPXOR Y10, Y10, Y10; \
	VPXOR Y11, Y11, Y11; \
	MOVQ CX, R12; \
	SHRQ $1, R12; \
	ANDQ $1, CX; \
	TESTQ R12, R12; \
	JZ tail

// INT8_SCALE takes zc off the sums, turns them into floats times the rows'
// and columns' scales plus the bias, and adds C when flags&1 (else goes
// on at finish, which must label KERNEL_FINISH).
#define INT8_SCALE(finish) \
	MOVQ c+24(FP), DX; \
	MOVQ ldc+32(FP), DI; \
	MOVQ bias+40(FP), R8; \
	MOVQ flags+48(FP), R9; \
	MOVQ rs+56(FP), R10; \
	MOVQ cs+64(FP), R13; \
	MOVQ zc+72(FP), SI; \
	LEAQ (DX)(DI*2), R11; \
	ADDQ DI, R11; \
	VMOVDQU (SI), Y12; \
	VMOVDQU 32(SI), Y13; \
	VPSUBD Y12, Y0, Y0; \
	VPSUBD Y13, Y1, Y1; \
	VPSUBD Y12, Y2, Y2; \
	VPSUBD Y13, Y3, Y3; \
	VPSUBD Y12, Y4, Y4; \
	VPSUBD Y13, Y5, Y5; \
	VPSUBD Y12, Y6, Y6; \
	VPSUBD Y13, Y7, Y7; \
	VPSUBD Y12, Y8, Y8; \
	VPSUBD Y13, Y9, Y9; \
	VPSUBD Y12, Y10, Y10; \
	VPSUBD Y13, Y11, Y11; \
	VMOVUPS (R13), Y12; \
	VMOVUPS 32(R13), Y13; \
	SCALE_ROW(0, Y0, Y1); \
	SCALE_ROW(1, Y2, Y3); \
	SCALE_ROW(2, Y4, Y5); \
	SCALE_ROW(3, Y6, Y7); \
	SCALE_ROW(4, Y8, Y9); \
	SCALE_ROW(5, Y10, Y11); \
	ADD_C(finish)

// ROW_F32 loads the float32 B row at off(BX) into Y12:Y13.
#define ROW_F32(off) \
	VMOVUPS (off)(BX), Y12; \
	VMOVUPS (off+32)(BX), Y13

// ROW_F16 loads the float16 B row at off(BX), widened, into Y12:Y13.
#define ROW_F16(off) \
	VCVTPH2PS (off)(BX), Y12; \
	VCVTPH2PS (off+16)(BX), Y13

// func kernelPacked6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32, flags int)
//
// C[6×16] = (flags&1 ? C : 0) + bias + A[6×k]·B[k×16], then max(·,0) when
// flags&2. A is packed: k groups of the six rows' values side by side, read
// as one stream (lda is unused). B is one packed panel: k rows of 16
// contiguous floats. C rows are ldc bytes apart. Twelve accumulators, two B
// vectors and two broadcast registers fill the sixteen YMM registers; the
// k loop is unrolled four times.
TEXT ·kernelPacked6x16(SB), NOSPLIT, $0-64
	KERNEL_START(ploopcheck)

ploopcheck:
	KERNEL_SPLIT(ptail)

ploop4:
	ROW_F32(0)
	KERNEL_FMA(0)
	ROW_F32(64)
	KERNEL_FMA(24)
	ROW_F32(128)
	KERNEL_FMA(48)
	ROW_F32(192)
	KERNEL_FMA(72)
	ADDQ $96, AX
	ADDQ $256, BX
	DECQ R12
	JNZ  ploop4

ptail:
	TESTQ CX, CX
	JZ    pdone

ploop1:
	ROW_F32(0)
	KERNEL_FMA(0)
	ADDQ $24, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  ploop1

pdone:
	KERNEL_FINISH(pstore)

pstore:
	KERNEL_STORE

// func kernelHalf6x16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32, flags int)
//
// As kernelPacked6x16, but the B panel holds IEEE float16 values, widened
// with F16C as they are loaded: weights take half the memory traffic, which
// is what bounds a short query.
TEXT ·kernelHalf6x16(SB), NOSPLIT, $0-64
	KERNEL_START(hloopcheck)

hloopcheck:
	KERNEL_SPLIT(htail)

hloop4:
	ROW_F16(0)
	KERNEL_FMA(0)
	ROW_F16(32)
	KERNEL_FMA(24)
	ROW_F16(64)
	KERNEL_FMA(48)
	ROW_F16(96)
	KERNEL_FMA(72)
	ADDQ $96, AX
	ADDQ $128, BX
	DECQ R12
	JNZ  hloop4

htail:
	TESTQ CX, CX
	JZ    hdone

hloop1:
	ROW_F16(0)
	KERNEL_FMA(0)
	ADDQ $24, AX
	ADDQ $32, BX
	DECQ CX
	JNZ  hloop1

hdone:
	KERNEL_FINISH(hstore)

hstore:
	KERNEL_STORE

// func hasF16C() bool
//
// CPUID leaf 1, ECX bit 29: the F16C conversions kernelHalf6x16 uses.
TEXT ·hasF16C(SB), NOSPLIT, $0-1
	MOVL  $1, AX
	MOVL  $0, CX
	CPUID
	SHRL  $29, CX
	ANDL  $1, CX
	MOVB  CX, ret+0(FP)
	RET

// DOT_I8 adds to the accumulators the products of the four-byte groups of
// the B row pair in Y12:Y13 (signed) and the six rows' groups at off(AX)
// (unsigned, broadcast in turn into Y14 and Y15): VPDPBUSD, VEX-encoded
// (AVX-VNNI), which Go's assembler only emits in its EVEX (AVX-512) form,
// so it is spelled out in bytes: C4, R̄X̄B̄ and map 0F38, W0 vvvv L1 pp=66,
// opcode 50, ModRM.
#define DOT_I8(off) \
	VPBROADCASTD (off+0)(AX), Y14; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x0d; BYTE $0x50; BYTE $0xc4 /* VPDPBUSD Y12, Y14, Y0 */; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x0d; BYTE $0x50; BYTE $0xcd /* VPDPBUSD Y13, Y14, Y1 */; \
	VPBROADCASTD (off+4)(AX), Y15; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x05; BYTE $0x50; BYTE $0xd4 /* VPDPBUSD Y12, Y15, Y2 */; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x05; BYTE $0x50; BYTE $0xdd /* VPDPBUSD Y13, Y15, Y3 */; \
	VPBROADCASTD (off+8)(AX), Y14; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x0d; BYTE $0x50; BYTE $0xe4 /* VPDPBUSD Y12, Y14, Y4 */; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x0d; BYTE $0x50; BYTE $0xed /* VPDPBUSD Y13, Y14, Y5 */; \
	VPBROADCASTD (off+12)(AX), Y15; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x05; BYTE $0x50; BYTE $0xf4 /* VPDPBUSD Y12, Y15, Y6 */; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x05; BYTE $0x50; BYTE $0xfd /* VPDPBUSD Y13, Y15, Y7 */; \
	VPBROADCASTD (off+16)(AX), Y14; \
	BYTE $0xc4; BYTE $0x42; BYTE $0x0d; BYTE $0x50; BYTE $0xc4 /* VPDPBUSD Y12, Y14, Y8 */; \
	BYTE $0xc4; BYTE $0x42; BYTE $0x0d; BYTE $0x50; BYTE $0xcd /* VPDPBUSD Y13, Y14, Y9 */; \
	VPBROADCASTD (off+20)(AX), Y15; \
	BYTE $0xc4; BYTE $0x42; BYTE $0x05; BYTE $0x50; BYTE $0xd4 /* VPDPBUSD Y12, Y15, Y10 */; \
	BYTE $0xc4; BYTE $0x42; BYTE $0x05; BYTE $0x50; BYTE $0xdd /* VPDPBUSD Y13, Y15, Y11 */

// SCALE_ROW turns row r's int32 sums (Ya, Yb) into floats: times the row's
// scale at 4r(R10) and the columns' scales in Y12:Y13, plus the bias.
#define SCALE_ROW(r, Ya, Yb) \
	VBROADCASTSS (4*r)(R10), Y14; \
	VMULPS Y14, Y12, Y15; \
	VCVTDQ2PS Ya, Ya; \
	VFMADD213PS (R8), Y15, Ya; \
	VMULPS Y14, Y13, Y15; \
	VCVTDQ2PS Yb, Yb; \
	VFMADD213PS 32(R8), Y15, Yb

// DOT_I8_EVEX is DOT_I8 in the EVEX (AVX512-VNNI with AVX512-VL) encoding
// of VPDPBUSD, for processors that have that but not AVX-VNNI.
#define DOT_I8_EVEX(off) \
	VPBROADCASTD (off+0)(AX), Y14; \
	VPDPBUSD Y12, Y14, Y0; \
	VPDPBUSD Y13, Y14, Y1; \
	VPBROADCASTD (off+4)(AX), Y15; \
	VPDPBUSD Y12, Y15, Y2; \
	VPDPBUSD Y13, Y15, Y3; \
	VPBROADCASTD (off+8)(AX), Y14; \
	VPDPBUSD Y12, Y14, Y4; \
	VPDPBUSD Y13, Y14, Y5; \
	VPBROADCASTD (off+12)(AX), Y15; \
	VPDPBUSD Y12, Y15, Y6; \
	VPDPBUSD Y13, Y15, Y7; \
	VPBROADCASTD (off+16)(AX), Y14; \
	VPDPBUSD Y12, Y14, Y8; \
	VPDPBUSD Y13, Y14, Y9; \
	VPBROADCASTD (off+20)(AX), Y15; \
	VPDPBUSD Y12, Y15, Y10; \
	VPDPBUSD Y13, Y15, Y11

// INT8_KERNEL is the whole of an int8 kernel: dot is DOT_I8 or
// DOT_I8_EVEX, the rest are the kernel's own labels.
#define INT8_KERNEL(dot, loop, tail, done, finish, store) \
	INT8_START(tail); \
loop: \
	VMOVDQU (BX), Y12; \
	VMOVDQU 32(BX), Y13; \
	dot(0); \
	VMOVDQU 64(BX), Y12; \
	VMOVDQU 96(BX), Y13; \
	dot(24); \
	ADDQ $48, AX; \
	ADDQ $128, BX; \
	DECQ R12; \
	JNZ loop; \
tail: \
	TESTQ CX, CX; \
	JZ done; \
	VMOVDQU (BX), Y12; \
	VMOVDQU 32(BX), Y13; \
	dot(0); \
done: \
	INT8_SCALE(finish); \
finish: \
	KERNEL_FINISH(store); \
store: \
	KERNEL_STORE

// func kernelInt8x6x16(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32)
//
// C[6×16] = (flags&1 ? C : 0) + bias + rs[r]·cs[j]·(Σ A[r][p]·B[p][j] − zc[j]),
// then max(·,0) when flags&2. A holds unsigned bytes, packed as k4 groups
// of the six rows' four consecutive values; B is one packed panel of
// signed bytes, k4 groups of 16 columns' four consecutive values. The sums
// are exact int32 (VPDPBUSD does not saturate); zc takes off what an
// offset in A's bytes adds. C rows are ldc bytes apart.
TEXT ·kernelInt8x6x16(SB), NOSPLIT, $0-80
	INT8_KERNEL(DOT_I8, iloop2, itail, idone, ifinish, istore)

// func kernelInt8x6x16EVEX(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32)
//
// kernelInt8x6x16 with the EVEX encoding of VPDPBUSD.
TEXT ·kernelInt8x6x16EVEX(SB), NOSPLIT, $0-80
	INT8_KERNEL(DOT_I8_EVEX, eloop2, etail, edone, efinish, estore)

// onesW is sixteen int16 ones: VPMADDWD by it adds pairs of int16 into
// int32.
DATA onesW<>+0(SB)/8, $0x0001000100010001
DATA onesW<>+8(SB)/8, $0x0001000100010001
DATA onesW<>+16(SB)/8, $0x0001000100010001
DATA onesW<>+24(SB)/8, $0x0001000100010001
GLOBL onesW<>(SB), RODATA|NOPTR, $32

// MADD_I8 adds to acc the four-byte dot products of the unsigned bytes in
// Y14 and the signed ones at off(BX), per int32 lane, with AVX2 alone:
// VPMADDUBSW sums each pair of byte products into an int16 in tmp
// (saturating, which the weights' range rules out), VPMADDWD by the ones
// in Y12 each pair of those into an int32.
#define MADD_I8(off, tmp, acc) \
	VPMADDUBSW off(BX), Y14, tmp; \
	VPMADDWD Y12, tmp, tmp; \
	VPADDD tmp, acc, acc

// MADD_ROW adds row r's products with the group's 16 columns at off(BX),
// its four bytes at aoff(AX).
#define MADD_ROW(aoff, off, acc0, acc1) \
	VPBROADCASTD aoff(AX), Y14; \
	MADD_I8(off, Y13, acc0); \
	MADD_I8(off+32, Y15, acc1)

// DOT_I8_MADD is DOT_I8 on AVX2 without VNNI, reading B from memory (so
// that Y12 holds the ones and Y13, Y15 the products on their way).
#define DOT_I8_MADD(aoff, off) \
	MADD_ROW(aoff+0, off, Y0, Y1); \
	MADD_ROW(aoff+4, off, Y2, Y3); \
	MADD_ROW(aoff+8, off, Y4, Y5); \
	MADD_ROW(aoff+12, off, Y6, Y7); \
	MADD_ROW(aoff+16, off, Y8, Y9); \
	MADD_ROW(aoff+20, off, Y10, Y11)

// func kernelInt8Madd6x16(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32)
//
// kernelInt8x6x16 on AVX2 alone (VPMADDUBSW, VPMADDWD), for processors
// without VNNI. The sums are exact only while every pair of byte products
// fits an int16: B's values must lie within ±64.
TEXT ·kernelInt8Madd6x16(SB), NOSPLIT, $0-80
	VMOVDQU onesW<>(SB), Y12
	INT8_START(mtail)

mloop2:
	DOT_I8_MADD(0, 0)
	DOT_I8_MADD(24, 64)
	ADDQ $48, AX
	ADDQ $128, BX
	DECQ R12
	JNZ  mloop2

mtail:
	TESTQ CX, CX
	JZ    mdone
	DOT_I8_MADD(0, 0)

mdone:
	INT8_SCALE(mfinish)

mfinish:
	KERNEL_FINISH(mstore)

mstore:
	KERNEL_STORE

// SPARSE_FMA adds the float16 weights at off(base)(BX), widened, times Y8
// into acc.
#define SPARSE_FMA(off, base, tmp, acc) \
	VCVTPH2PS off(base)(BX*1), tmp; \
	VFMADD231PS tmp, Y8, acc

// func sparseHalf64(out *float32, w *uint16, panel int, idx *int32, val *float32, nnz int, bias *float32, flags int)
//
// out[0:64] = (flags&1 ? out : 0) + bias + Σ val[t]·W[idx[t]][0:64], then
// max(·,0) when flags&2, for one row of a product whose input row is mostly
// zeros: only its nnz nonzero values val, at idx (their row of W times 16),
// are multiplied. W is four consecutive float16 panels of 16 columns,
// panel bytes apart. Eight accumulators, one multiply-add each per
// nonzero: enough independent sums to keep both FMA pipes busy.
TEXT ·sparseHalf64(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ panel+16(FP), DX
	MOVQ idx+24(FP), R8
	MOVQ val+32(FP), R9
	MOVQ nnz+40(FP), CX
	MOVQ bias+48(FP), R10
	MOVQ flags+56(FP), R11
	LEAQ (SI)(DX*1), R12
	LEAQ (R12)(DX*1), R13
	LEAQ (R13)(DX*1), AX
	VMOVUPS (R10), Y0
	VMOVUPS 32(R10), Y1
	VMOVUPS 64(R10), Y2
	VMOVUPS 96(R10), Y3
	VMOVUPS 128(R10), Y4
	VMOVUPS 160(R10), Y5
	VMOVUPS 192(R10), Y6
	VMOVUPS 224(R10), Y7
	TESTQ $1, R11
	JZ   sloopcheck
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VADDPS 64(DI), Y2, Y2
	VADDPS 96(DI), Y3, Y3
	VADDPS 128(DI), Y4, Y4
	VADDPS 160(DI), Y5, Y5
	VADDPS 192(DI), Y6, Y6
	VADDPS 224(DI), Y7, Y7

sloopcheck:
	TESTQ CX, CX
	JZ   sdone

sloop:
	MOVLQSX (R8), BX
	SHLQ $1, BX
	VBROADCASTSS (R9), Y8
	SPARSE_FMA(0, SI, Y9, Y0)
	SPARSE_FMA(16, SI, Y10, Y1)
	SPARSE_FMA(0, R12, Y11, Y2)
	SPARSE_FMA(16, R12, Y12, Y3)
	SPARSE_FMA(0, R13, Y9, Y4)
	SPARSE_FMA(16, R13, Y10, Y5)
	SPARSE_FMA(0, AX, Y11, Y6)
	SPARSE_FMA(16, AX, Y12, Y7)
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ CX
	JNZ  sloop

sdone:
	TESTQ $2, R11
	JZ   sstore
	VXORPS Y9, Y9, Y9
	VMAXPS Y9, Y0, Y0
	VMAXPS Y9, Y1, Y1
	VMAXPS Y9, Y2, Y2
	VMAXPS Y9, Y3, Y3
	VMAXPS Y9, Y4, Y4
	VMAXPS Y9, Y5, Y5
	VMAXPS Y9, Y6, Y6
	VMAXPS Y9, Y7, Y7

sstore:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VZEROUPPER
	RET
