//go:build !amd64

package use

// The int8 kernel is amd64's alone (VPDPBUSD): elsewhere int8OK is false
// and the float kernels run.
const int8OK = false

// No AVX2 int8 kernel either, nor an EVEX form.
const int8MaddOK = false

var int8EVEXOK, int8EVEX = false, false

func kernelInt8x6x16EVEX(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32) {
	panic("use: no int8 kernel on this architecture")
}

func kernelInt8x6x16(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32) {
	panic("use: no int8 kernel on this architecture")
}

func kernelInt8Madd6x16(a *uint8, b *int8, k4 int, c *float32, ldc int, bias *float32, flags int, rs *float32, cs *float32, zc *int32) {
	panic("use: no int8 kernel on this architecture")
}
