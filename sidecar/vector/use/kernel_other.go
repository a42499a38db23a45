//go:build !amd64

package use

// haveSIMD is false off amd64: the portable kernel runs instead.
var haveSIMD = false

func setSIMD(bool) {}

func kernelPacked6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32, flags int) {
	panic("use: no SIMD kernel on this architecture")
}
