//go:build !amd64

package use

// haveSIMD is false off amd64: the portable kernels run instead.
var haveSIMD = false

func setSIMD(bool) {}

func kernelPacked6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32, flags int) {
	panic("use: no SIMD kernel on this architecture")
}

func kernelHalf6x16(a *float32, lda int, b *uint16, k int, c *float32, ldc int, bias *float32, flags int) {
	panic("use: no SIMD kernel on this architecture")
}

func expShift(row *float32, n int, m, scale float32) float32 {
	panic("use: no SIMD kernel on this architecture")
}
