package use

import "os"

// KernelEnv is the environment variable that picks the matrix kernels.
// Unset (or anything else), the fastest float kernels this processor has:
// AVX2 or NEON, else SSE, else plain Go. "sse" runs the SSE ones on amd64
// and "portable" the plain Go ones, to compare results and speed on one
// machine; "int8" runs the products applied to every token on int8
// weights, on amd64 processors with AVX-VNNI or AVX-512 VNNI (about twice
// the chunks per CPU-second of AVX2). int8 is not the default: its
// vectors are within cosine 0.999 of the float ones and its dense
// retrieval equals theirs on the ariostea dev set, but fused with keywords
// (the hybrid channel) it answers one question fewer there (span recall@5
// 0.672 against 0.688). "int8avx2" runs the same products with AVX2's
// VPMADDUBSW on any amd64 processor with AVX2, on weights rounded to 129
// levels instead of 255 (so that two byte products fit the int16 that
// instruction sums them into).
const KernelEnv = "QUIRE_EMBED_KERNEL"

// int8MaddName names the int8 kernel that runs on AVX2 alone.
const int8MaddName = "int8avx2"

// haveSIMD says whether the AVX2 or NEON kernels run; haveSSE whether the
// SSE ones do, on amd64 processors without AVX2; haveInt8 whether the
// weight products run on int8 weights (with AVX2 for the rest), and
// int8Madd whether those are quantised for and run by the AVX2 int8
// kernel rather than the VNNI one.
var haveSIMD, haveSSE, haveInt8, int8Madd = pickKernel(os.Getenv(KernelEnv))

func pickKernel(env string) (simd, sse, int8, madd bool) {
	switch {
	case env == "portable":
		return false, false, false, false
	case env == "sse":
		return false, sseOK, false, false
	case env == "int8" && int8OK:
		return true, false, true, false
	case env == int8MaddName && int8MaddOK:
		return true, false, true, true
	case simdOK:
		return true, false, false, false
	}
	return false, sseOK, false, false
}

// setKernel lets tests and benchmarks run the named kernels (simdName,
// "sse" or "portable"). Weights are laid out for the kernel chosen when
// they were decoded (float16 for one that widens them in registers), so a
// model decoded before the switch still works but may run slowly: decode
// another.
func setKernel(name string) {
	int8Madd = name == int8MaddName && int8MaddOK
	haveInt8 = name == "int8" && int8OK || int8Madd
	haveSIMD = (name == simdName || haveInt8) && simdOK
	haveSSE = name == "sse" && sseOK
}

// kernelName names the kernels that run.
func kernelName() string {
	switch {
	case int8Madd:
		return int8MaddName
	case haveInt8:
		return "int8"
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
	if int8OK {
		ks = append(ks, "int8")
	}
	if int8MaddOK {
		ks = append(ks, int8MaddName)
	}
	if simdOK {
		ks = append(ks, simdName)
	}
	if sseOK {
		ks = append(ks, "sse")
	}
	return append(ks, "portable")
}

// isInt8 says whether the named kernels run the weight products on int8
// weights (their float products are the SIMD ones).
func isInt8(kernel string) bool { return kernel == "int8" || kernel == int8MaddName }
