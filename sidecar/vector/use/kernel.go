package use

import "os"

// KernelEnv is the environment variable that picks the matrix kernels:
// "portable" runs the plain Go ones even where assembly ones exist, to
// compare their results and speed on one machine; anything else (or unset)
// runs the fastest this processor supports.
const KernelEnv = "QUIRE_EMBED_KERNEL"

// haveSIMD says whether the assembly kernels run.
var haveSIMD = simdOK && os.Getenv(KernelEnv) != "portable"

// setSIMD lets tests and benchmarks run the portable kernels where assembly
// ones exist. Weights are laid out for the kernel chosen when they were
// decoded (float16 for one that widens them in registers), so a model
// decoded before the switch still works but runs slowly: decode another.
func setSIMD(on bool) { haveSIMD = on && simdOK }

// kernelName names the kernels that run: simdName or "portable".
func kernelName() string {
	if haveSIMD {
		return simdName
	}
	return "portable"
}
