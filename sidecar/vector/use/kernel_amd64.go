package use

import "golang.org/x/sys/cpu"

// simdOK says whether this processor has what the assembly kernels use:
// AVX2 and FMA for the products, F16C to widen float16 weights.
var simdOK = cpu.X86.HasAVX2 && cpu.X86.HasFMA && hasF16C()

// int8OK says whether the int8 kernel runs here: VPDPBUSD on top of
// AVX2, VEX-encoded (AVX-VNNI) or, on processors with AVX-512 but not
// AVX-VNNI (AMD Zen 4, Intel Ice Lake to Rocket Lake), EVEX-encoded.
var int8OK = simdOK && (cpu.X86.HasAVXVNNI || int8EVEXOK)

// int8MaddOK says whether the AVX2 int8 kernel (VPMADDUBSW, VPMADDWD)
// runs here: wherever the AVX2 float kernels do.
var int8MaddOK = simdOK

// int8EVEXOK says whether the EVEX form runs here; int8EVEX whether the
// int8 kernel uses it (tests switch it where both forms run).
var (
	int8EVEXOK = cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512VL
	int8EVEX   = !cpu.X86.HasAVXVNNI
)

func hasF16C() bool

//go:noescape
func kernelPacked6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32, flags int)

//go:noescape
func kernelHalf6x16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32, flags int)

//go:noescape
func expShift(row *float32, n int, m, scale float32) float32

// sseOK: SSE2 is part of every amd64 processor.
const sseOK = true

//go:noescape
func kernelSSE6x16(a *float32, b *float32, k int, c *float32, ldc int, bias *float32, flags int)

// simdName names the assembly kernels in benchmarks and tests.
const simdName = "avx2"

//go:noescape
func kernelInt8x6x16EVEX(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32)

//go:noescape
func kernelInt8Madd6x16(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32)

//go:noescape
func kernelInt8x6x16(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32)

// sparseHalfOK says sparseHalf64 exists; it runs where the AVX2 kernels do.
const sparseHalfOK = true

//go:noescape
func sparseHalf64(out *float32, w *uint16, panel int, idx *int32, val *float32, nnz int, bias *float32, flags int)
