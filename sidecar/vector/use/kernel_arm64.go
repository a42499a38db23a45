package use

// simdOK is true on every arm64 processor: Go's arm64 port assumes ARMv8-A,
// where Advanced SIMD (NEON) and the float16 conversions are part of the
// base architecture.
const simdOK = true

const sseOK = false

func kernelSSE6x16(a *float32, b *float32, k int, c *float32, ldc int, bias *float32, flags int) {
	panic("use: no SSE kernel on this architecture")
}

// simdName names the assembly kernels in benchmarks and tests.
const simdName = "neon"

//go:noescape
func kernelPacked6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32, flags int)

//go:noescape
func kernelHalf6x16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32, flags int)

//go:noescape
func expShift(row *float32, n int, m, scale float32) float32

// sparseHalfOK says sparseHalf64 exists.
const sparseHalfOK = true

//go:noescape
func sparseHalf64(out *float32, w *uint16, panel int, idx *int32, val *float32, nnz int, bias *float32, flags int)
