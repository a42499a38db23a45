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

// No assembly kernels here: the portable ones run.
const (
	simdOK   = false
	sseOK    = false
	simdName = "none"
)

// sparseHalfOK: no sparse float16 kernel here.
const sparseHalfOK = false

func sparseHalf64(out *float32, w *uint16, panel int, idx *int32, val *float32, nnz int, bias *float32, flags int) {
	panic("use: no sparse kernel on this architecture")
}
