package use

import "golang.org/x/sys/cpu"

// haveSIMD says whether the AVX2/FMA kernel may run on this processor.
var haveSIMD = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// setSIMD lets tests run the portable kernel on a machine with AVX2.
func setSIMD(on bool) { haveSIMD = on && cpu.X86.HasAVX2 && cpu.X86.HasFMA }

//go:noescape
func kernelPacked6x16(a *float32, lda int, b *float32, k int, c *float32, ldc int, bias *float32, flags int)
