//go:build !amd64 && !arm64

package use

func kernelPacked6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32, flags int) {
	panic("use: no SIMD kernel on this architecture")
}

func kernelHalf6x16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32, flags int) {
	panic("use: no SIMD kernel on this architecture")
}

func expShift(row *float32, n int, m, scale float32) float32 {
	panic("use: no SIMD kernel on this architecture")
}

func kernelSSE6x16(a *float32, b *float32, k int, c *float32, ldc int, bias *float32, flags int) {
	panic("use: no SSE kernel on this architecture")
}

func kernelInt8x6x16EVEX(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32) {
	panic("use: no int8 kernel on this architecture")
}

func kernelInt8x6x16(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32) {
	panic("use: no int8 kernel on this architecture")
}

// No assembly kernels here: the portable ones run.
const (
	simdOK   = false
	sseOK    = false
	simdName = "none"
	int8OK   = false
)

// sparseHalfOK: no sparse float16 kernel here.
const sparseHalfOK = false

func sparseHalf64(out *float32, w *uint16, panel int, idx *int32, val *float32, nnz int, bias *float32, flags int) {
	panic("use: no sparse kernel on this architecture")
}

// No EVEX form of the int8 kernel here.
var int8EVEXOK, int8EVEX = false, false
