package use

import "os"

// KernelEnv is the environment variable that picks the matrix kernels:
// "portable" runs the plain Go ones even where assembly ones exist, and
// "sse" the SSE ones on amd64, to compare results and speed on one
// machine; anything else (or unset) runs the fastest this processor
// supports.
const KernelEnv = "QUIRE_EMBED_KERNEL"

// haveSIMD says whether the AVX2 or NEON kernels run; haveSSE whether the
// SSE ones do, on amd64 processors without AVX2.
var haveSIMD, haveSSE = pickKernel(os.Getenv(KernelEnv))

func pickKernel(env string) (simd, sse bool) {
	switch {
	case env == "portable":
		return false, false
	case env == "sse":
		return false, sseOK
	case simdOK:
		return true, false
	}
	return false, sseOK
}

// setKernel lets tests and benchmarks run the named kernels (simdName,
// "sse" or "portable"). Weights are laid out for the kernel chosen when
// they were decoded (float16 for one that widens them in registers), so a
// model decoded before the switch still works but may run slowly: decode
// another.
func setKernel(name string) {
	haveSIMD, haveSSE = name == simdName && simdOK, name == "sse" && sseOK
}

// kernelName names the kernels that run.
func kernelName() string {
	switch {
	case haveSIMD:
		return simdName
	case haveSSE:
		return "sse"
	}
	return "portable"
}

// kernels lists the kernels this processor can run, fastest first.
func kernels() []string {
	var ks []string
	if simdOK {
		ks = append(ks, simdName)
	}
	if sseOK {
		ks = append(ks, "sse")
	}
	return append(ks, "portable")
}
