#include "textflag.h"

// Constants for expShift, each repeated across eight lanes.
DATA expc<>+0(SB)/4, $0xc2ae0000   // -87: below it e^x underflows
DATA expc<>+4(SB)/4, $0x3fb8aa3b   // log2(e)
DATA expc<>+8(SB)/4, $0x3f318000   // ln 2, high part (0.693359375)
DATA expc<>+12(SB)/4, $0xb95e8083  // ln 2, low part (-2.12194440e-4)
DATA expc<>+16(SB)/4, $0x39506967  // p0 1.9875691500e-4
DATA expc<>+20(SB)/4, $0x3ab743ce  // p1 1.3981999507e-3
DATA expc<>+24(SB)/4, $0x3c088908  // p2 8.3334519073e-3
DATA expc<>+28(SB)/4, $0x3d2aa9c1  // p3 4.1665795894e-2
DATA expc<>+32(SB)/4, $0x3e2aaaaa  // p4 1.6666665459e-1
DATA expc<>+36(SB)/4, $0x3f000000  // p5 5.0000001201e-1
DATA expc<>+40(SB)/4, $0x3f800000  // 1
DATA expc<>+44(SB)/4, $0x0000007f  // exponent bias 127
GLOBL expc<>(SB), RODATA|NOPTR, $48

// func expShift(row *float32, n int, m, scale float32) float32
//
// row[i] = e^((row[i]-m)·scale) for i < n (n a multiple of 8, arguments
// ≤ 0), returning the sum. The same Cephes polynomial as exp32.
TEXT ·expShift(SB), NOSPLIT, $0-28
	MOVQ         row+0(FP), AX
	MOVQ         n+8(FP), CX
	VBROADCASTSS m+16(FP), Y15
	VBROADCASTSS scale+20(FP), Y14
	LEAQ         expc<>(SB), DX
	VBROADCASTSS 0(DX), Y13  // lo
	VBROADCASTSS 4(DX), Y12  // log2e
	VBROADCASTSS 8(DX), Y11  // c1
	VBROADCASTSS 12(DX), Y10 // c2
	VBROADCASTSS 40(DX), Y9  // 1
	VPBROADCASTD 44(DX), Y8  // 127
	VXORPS       Y7, Y7, Y7  // sum
	SHRQ         $3, CX
	JZ           done

loop:
	VMOVUPS      (AX), Y0
	VSUBPS       Y15, Y0, Y0
	VMULPS       Y14, Y0, Y0
	VMAXPS       Y13, Y0, Y0
	VMULPS       Y12, Y0, Y1
	VROUNDPS     $0, Y1, Y1
	VFNMADD231PS Y11, Y1, Y0
	VFNMADD231PS Y10, Y1, Y0
	VBROADCASTSS 16(DX), Y2
	VBROADCASTSS 20(DX), Y3
	VFMADD213PS  Y3, Y0, Y2
	VBROADCASTSS 24(DX), Y3
	VFMADD213PS  Y3, Y0, Y2
	VBROADCASTSS 28(DX), Y3
	VFMADD213PS  Y3, Y0, Y2
	VBROADCASTSS 32(DX), Y3
	VFMADD213PS  Y3, Y0, Y2
	VBROADCASTSS 36(DX), Y3
	VFMADD213PS  Y3, Y0, Y2
	VMULPS       Y0, Y0, Y3
	VFMADD213PS  Y0, Y3, Y2
	VADDPS       Y9, Y2, Y2
	VCVTPS2DQ    Y1, Y1
	VPADDD       Y8, Y1, Y1
	VPSLLD       $23, Y1, Y1
	VMULPS       Y1, Y2, Y2
	VMOVUPS      Y2, (AX)
	VADDPS       Y2, Y7, Y7
	ADDQ         $32, AX
	DECQ         CX
	JNZ          loop

done:
	VEXTRACTF128 $1, Y7, X0
	VADDPS       X0, X7, X7
	VHADDPS      X7, X7, X7
	VHADDPS      X7, X7, X7
	VZEROUPPER
	MOVSS        X7, ret+24(FP)
	RET
