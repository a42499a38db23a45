package use

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}

// randHalf returns n float16 bit patterns of finite values between 2^-6
// and 2^2 in magnitude, of either sign.
func randHalf(r *rand.Rand, n int) []uint16 {
	bits := make([]uint16, n)
	for i := range bits {
		bits[i] = uint16(r.IntN(2))<<15 | uint16(9+r.IntN(8))<<10 | uint16(r.IntN(1024))
	}
	return bits
}

// TestGemmMatchesNaive checks gemm (with whichever kernel this machine runs)
// and the portable kernel against a plain triple loop, on row counts that are
// and are not multiples of the tile height, with every flag combination.
func TestGemmMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{1, 5, 6, 7, 13, 130} {
		for _, k := range []int{1, 16, 100, 512} {
			for _, n := range []int{16, 64} {
				for flags := 0; flags < 8; flags++ {
					half := flags&4 != 0
					flags := flags & 3
					a := randSlice(r, m*k)
					w := randSlice(r, k*n)
					bits := randHalf(r, k*n)
					if half {
						for i, h := range bits {
							w[i] = halfTable[h]
						}
					}
					bias := randSlice(r, n)
					c0 := randSlice(r, m*n)
					want := make([]float32, m*n)
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							var s float64
							for p := 0; p < k; p++ {
								s += float64(a[i*k+p]) * float64(w[p*n+j])
							}
							s += float64(bias[j])
							if flags&accumulate != 0 {
								s += float64(c0[i*n+j])
							}
							if flags&relu != 0 && s < 0 {
								s = 0
							}
							want[i*n+j] = float32(s)
						}
					}
					b := packMatrix(w, k, n)
					if half {
						b = packHalf(bits, k, n)
					}
					for _, portable := range []bool{false, true} {
						name := fmt.Sprintf("m%d k%d n%d flags%d half=%v portable=%v", m, k, n, flags, half, portable)
						c := append([]float32(nil), c0...)
						saved := kernelName()
						if portable {
							setKernel("portable")
						}
						gemm(c, n, a, k, m, b, bias, flags, &scratch{})
						setKernel(saved)
						for i := range c {
							if d := math.Abs(float64(c[i] - want[i])); d > 4e-4*float64(k) {
								t.Fatalf("%s: c[%d] = %v, want %v", name, i, c[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestSIMDMatchesPortable holds this machine's assembly kernels (AVX2 and
// SSE on amd64, NEON on arm64) to the portable ones on random shapes, edge
// sizes among them: one row, one step of k, k not a multiple of the
// unrolling, rows short of a tile, float16 and float32 weights, every flag.
func TestSIMDMatchesPortable(t *testing.T) {
	ks := kernels()
	if len(ks) == 1 {
		t.Skip("no assembly kernels on this processor")
	}
	for _, kern := range ks[:len(ks)-1] {
		if isInt8(kern) {
			continue // its float products are the AVX2 ones; TestInt8MatchesGemm
		}
		t.Run(kern, func(t *testing.T) { testKernelMatchesPortable(t, kern) })
	}
}

func testKernelMatchesPortable(t *testing.T, kern string) {
	r := rand.New(rand.NewPCG(5, 6))
	shapes := [][3]int{{1, 1, 16}, {1, 3, 16}, {6, 1, 16}, {5, 2, 32}, {7, 5, 16}, {12, 7, 48}, {1, 512, 1536}}
	for range 40 {
		shapes = append(shapes, [3]int{1 + r.IntN(40), 1 + r.IntN(300), tileCols * (1 + r.IntN(6))})
	}
	for _, sh := range shapes {
		m, k, n := sh[0], sh[1], sh[2]
		for flags := 0; flags < 8; flags++ {
			half := flags&4 != 0
			flags := flags & 3
			a := randSlice(r, m*k)
			bits := randHalf(r, k*n)
			w := make([]float32, k*n)
			for i, h := range bits {
				w[i] = halfTable[h]
			}
			b := packMatrix(w, k, n)
			if half {
				b = packHalf(bits, k, n)
			}
			bias := randSlice(r, n)
			c0 := randSlice(r, m*n)
			run := func(kernel string) []float32 {
				saved := kernelName()
				setKernel(kernel)
				defer setKernel(saved)
				c := append([]float32(nil), c0...)
				gemm(c, n, a, k, m, b, bias, flags, &scratch{})
				return c
			}
			got, want := run(kern), run("portable")
			for i := range got {
				// Fused and separate multiply-adds round differently.
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*float64(k)+1e-6 {
					t.Fatalf("m%d k%d n%d flags%d half=%v: c[%d] = %v (%s), portable %v", m, k, n, flags, half, i, got[i], kern, want[i])
				}
			}
		}
	}
}

func BenchmarkGemm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][3]int{{128, 512, 1536}, {128, 1536, 512}, {256, 512, 1536}, {256, 1536, 512}, {128, 64, 128}, {6, 256, 16}, {48, 256, 64}} {
		m, k, n := sh[0], sh[1], sh[2]
		a := randSlice(r, m*k)
		w := packMatrix(randSlice(r, k*n), k, n)
		c := make([]float32, m*n)
		for _, kern := range kernels() {
			if isInt8(kern) {
				continue // BenchmarkGemmInt8
			}
			b.Run(fmt.Sprintf("%dx%dx%d/%s", m, k, n, kern), func(b *testing.B) {
				saved := kernelName()
				setKernel(kern)
				defer setKernel(saved)
				s := &scratch{}
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					gemm(c, n, a, k, m, w, nil, 0, s)
				}
				flops := 2 * float64(m*k*n) * float64(b.N)
				b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOPS")
				b.ReportMetric(flops/(cpuTime()-cpu0).Seconds()/1e9, "GFLOPS/cpu")
			})
		}
	}
}

func TestExp32(t *testing.T) {
	for x := float32(-90); x <= 0; x += 0.001 {
		got, want := float64(exp32(x)), math.Exp(float64(x))
		if want < 1e-37 {
			if got > 1e-37 {
				t.Fatalf("exp32(%v) = %v, want ≈ 0", x, got)
			}
			continue
		}
		if rel := math.Abs(got-want) / want; rel > 1e-6 {
			t.Fatalf("exp32(%v) = %v, want %v (relative error %.2g)", x, got, want, rel)
		}
	}
}

func TestSoftmaxSIMDMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 3, 4, 5, 7, 8, 9, 16, 17, 64, 127, 128} {
		row := randSlice(r, n)
		for i := range row {
			row[i] *= 40 // reach deep into the exponent range
		}
		want := append([]float32(nil), row...)
		saved := kernelName()
		setKernel("portable")
		softmax(want, 0.125)
		setKernel(saved)
		got := append([]float32(nil), row...)
		softmax(got, 0.125)
		for i := range got {
			if d := math.Abs(float64(got[i] - want[i])); d > 1e-6 {
				t.Fatalf("n=%d: softmax[%d] = %v, portable %v", n, i, got[i], want[i])
			}
		}
	}
}

func TestHalfToFloat(t *testing.T) {
	tests := []struct {
		bits uint16
		want float32
	}{
		{0x0000, 0},
		{0x3c00, 1},
		{0xc000, -2},
		{0x3555, 0.333251953125},
		{0x7bff, 65504},
		{0x0001, 5.9604645e-8}, // smallest subnormal
		{0x03ff, 6.0975552e-5}, // largest subnormal
		{0x0400, 6.1035156e-5}, // smallest normal
	}
	for _, tt := range tests {
		if got := halfToFloat(tt.bits); got != tt.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", tt.bits, got, tt.want)
		}
	}
}

// TestGemmSparseMatchesGemm holds the product that skips zeros to gemm on
// inputs with most, some and all values zero, every flag, short and long
// rows.
func TestGemmSparseMatchesGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	shapes := [][3]int{{1, 1, 16}, {3, 7, 32}, {13, 1536, 512}, {sparseRows + 5, 40, 32}, {1, 1, 64}, {sparseRows + 1, 33, 128}, {2 * sparseRows, 1536, 64}}
	for range 20 {
		shapes = append(shapes, [3]int{1 + r.IntN(40), 1 + r.IntN(300), tileCols * (1 + r.IntN(6))})
	}
	for _, sh := range shapes {
		m, k, n := sh[0], sh[1], sh[2]
		for _, zeroShare := range []float64{0, 0.9, 1} {
			lda := k + 3 // rows of A need not be packed
			a := randSlice(r, m*lda)
			for i := range a {
				if r.Float64() < zeroShare {
					a[i] = 0
				}
			}
			b := packMatrix(randSlice(r, k*n), k, n)
			bias := randSlice(r, n)
			c0 := randSlice(r, m*n)
			for flags := 0; flags < 4; flags++ {
				want := append([]float32(nil), c0...)
				gemm(want, n, a, lda, m, b, bias, flags, &scratch{})
				got := append([]float32(nil), c0...)
				gemmSparse(got, n, a, lda, m, b, bias, flags, newSparseScratch(k))
				for i := range got {
					if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*float64(k)+1e-6 {
						t.Fatalf("m%d k%d n%d zeros %.1f flags%d: c[%d] = %v, gemm %v", m, k, n, zeroShare, flags, i, got[i], want[i])
					}
				}
				if !sparseHalfOK || !simdOK || n%(sparseGroup*tileCols) != 0 {
					continue
				}
				// The AVX2 kernel on float16 weights, against gemm on the
				// same weights.
				bits := randHalf(r, k*n)
				bh := packHalf(bits, k, n)
				wantH := append([]float32(nil), c0...)
				gemm(wantH, n, a, lda, m, bh, bias, flags, &scratch{})
				gotH := append([]float32(nil), c0...)
				gemmSparseHalf(gotH, n, a, lda, m, bh, bias, flags, newSparseScratch(k))
				for i := range gotH {
					if d := math.Abs(float64(gotH[i] - wantH[i])); d > 1e-5*float64(k)+1e-6 {
						t.Fatalf("half: m%d k%d n%d zeros %.1f flags%d: c[%d] = %v, gemm %v", m, k, n, zeroShare, flags, i, gotH[i], wantH[i])
					}
				}
			}
		}
	}
}

// BenchmarkGemmSparse compares the product that skips zeros with the dense
// kernels on the shape and share of zeros of a chunk's feed-forward hidden
// rows (128 rows of 1536, 93% zero, into 512).
func BenchmarkGemmSparse(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	m, k, n := 128, 1536, 512
	a := randSlice(r, m*k)
	for i := range a {
		if r.IntN(14) != 0 {
			a[i] = 0
		}
	}
	w := packMatrix(randSlice(r, k*n), k, n)
	c := make([]float32, m*n)
	run := func(b *testing.B, f func()) {
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			f()
		}
		b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
	}
	for _, kern := range kernels() {
		if isInt8(kern) {
			continue
		}
		b.Run("dense/"+kern, func(b *testing.B) {
			saved := kernelName()
			setKernel(kern)
			defer setKernel(saved)
			s := &scratch{}
			run(b, func() { gemm(c, n, a, k, m, w, nil, 0, s) })
		})
	}
	b.Run("sparse", func(b *testing.B) {
		s := newSparseScratch(k)
		run(b, func() { gemmSparse(c, n, a, k, m, w, nil, 0, s) })
	})
	if !sparseHalfOK || !simdOK {
		return
	}
	// Float16 weights, as the AVX2 kernels hold them.
	bits := randHalf(r, k*n)
	wh := packHalf(bits, k, n)
	b.Run("dense-half/"+simdName, func(b *testing.B) {
		s := &scratch{}
		run(b, func() { gemm(c, n, a, k, m, wh, nil, 0, s) })
	})
	b.Run("sparse-half/"+simdName, func(b *testing.B) {
		s := newSparseScratch(k)
		run(b, func() { gemmSparseHalf(c, n, a, k, m, wh, nil, 0, s) })
	})
}
