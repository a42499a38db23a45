package use

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// dequantizeRows returns what the int8 kernel makes of m rows of k values
// of a: each row's qBlock-wide blocks rounded to 255 levels symmetric about
// zero, worked out here apart from quantizeRows.
func dequantizeRows(a []float32, lda, m, k int) []float32 {
	out := make([]float32, m*k)
	for i := 0; i < m; i++ {
		for k0 := 0; k0 < k; k0 += qBlock {
			blk := a[i*lda+k0 : i*lda+min(k0+qBlock, k)]
			var mx float32
			for _, v := range blk {
				mx = max(mx, float32(math.Abs(float64(v))))
			}
			const levels, zero = 127, 128
			if mx == 0 {
				continue
			}
			scale, inv := mx/levels, levels/mx
			for p, v := range blk {
				// Offset, add a half and truncate, in float32 as the
				// packing does, so that values near half-way round alike.
				q := float32(int32(v*inv+zero+0.5)) - zero
				out[i*k+k0+p] = q * scale
			}
		}
	}
	return out
}

// dequantizeMatrix returns the k×n matrix w as the int8 kernel holds it:
// each column's qBlock-deep blocks rounded to the nearest of levels steps
// either side of zero (int8Levels, or maddLevels for the AVX2 kernel).
func dequantizeMatrix(w []float32, k, n int, levels float64) []float32 {
	out := make([]float32, k*n)
	for j := 0; j < n; j++ {
		for k0 := 0; k0 < k; k0 += qBlock {
			k1 := min(k0+qBlock, k)
			var mx float64
			for p := k0; p < k1; p++ {
				mx = max(mx, math.Abs(float64(w[p*n+j])))
			}
			if mx == 0 {
				continue
			}
			for p := k0; p < k1; p++ {
				q := float32(math.Round(float64(w[p*n+j] * float32(levels/mx))))
				out[p*n+j] = q * float32(mx/levels)
			}
		}
	}
	return out
}

// TestInt8MatchesGemm holds the int8 product to the float one on the same
// values rounded as it rounds them (so what is left is float rounding and
// any mistake in packing, sums, offsets or scales), on random shapes and
// edge sizes: one row, rows short of a tile, k not a multiple of four, k
// one past a block, rows of zeros, rows lda apart, half the panels (as a
// query's split product takes them), every flag, signed and non-negative
// inputs.
//
// It tests every int8 kernel the processor runs: VPDPBUSD in both
// encodings where it has both, and the AVX2 one (VPMADDUBSW).
func TestInt8MatchesGemm(t *testing.T) {
	if !int8OK && !int8MaddOK {
		t.Skip("no int8 kernel on this processor")
	}
	saved := int8EVEX
	defer func() { int8EVEX = saved }()
	if int8OK {
		forms := []bool{int8EVEX}
		if int8EVEXOK && !int8EVEX {
			forms = append(forms, true)
		}
		for _, evex := range forms {
			int8EVEX = evex
			t.Run(fmt.Sprintf("evex=%v", evex), func(t *testing.T) { testInt8MatchesGemm(t, false) })
		}
	}
	if int8MaddOK {
		t.Run(int8MaddName, func(t *testing.T) { testInt8MatchesGemm(t, true) })
	}
}

// weightLevels is the largest weight magnitude quantizeMatrix gives.
func weightLevels(madd bool) float64 {
	if madd {
		return maddLevels
	}
	return int8Levels
}

func testInt8MatchesGemm(t *testing.T, madd bool) {
	r := rand.New(rand.NewPCG(9, 10))
	shapes := [][3]int{{1, 1, 16}, {1, 3, 16}, {6, 4, 16}, {5, 2, 32}, {7, 5, 16}, {6, qBlock, 16}, {13, qBlock + 1, 48}, {1, 512, 1536}, {130, 1536, 64}}
	for range 30 {
		shapes = append(shapes, [3]int{1 + r.IntN(40), 1 + r.IntN(600), tileCols * (1 + r.IntN(6))})
	}
	for _, sh := range shapes {
		m, k, n := sh[0], sh[1], sh[2]
		lda := k + r.IntN(3)
		for flags := 0; flags < 8; flags++ {
			nonNeg := flags&4 != 0
			flags := flags & 3
			a := randSlice(r, m*lda)
			if nonNeg {
				for i := range a {
					a[i] = max(a[i], 0)
				}
			}
			clear(a[(m/2)*lda : (m/2)*lda+k]) // a row of zeros
			w := randSlice(r, k*n)
			for i := range w {
				w[i] *= float32(1 + i%n) // columns of different ranges
			}
			bias := randSlice(r, n)
			c0 := randSlice(r, m*n)
			want := append([]float32(nil), c0...)
			gemm(want, n, dequantizeRows(a, lda, m, k), k, m, packMatrix(dequantizeMatrix(w, k, n, weightLevels(madd)), k, n), bias, flags, &scratch{})
			q := quantizeMatrix(w, k, n, madd)
			got := append([]float32(nil), c0...)
			if p := n / tileCols; p > 1 && nonNeg {
				// The two halves of the panels, as split products run them.
				h := p / 2
				gemmInt8(got, n, a, lda, m, q.columns(0, h), bias, flags, &qscratch{})
				gemmInt8(got[h*tileCols:], n, a, lda, m, q.columns(h, p), bias[h*tileCols:], flags, &qscratch{})
			} else {
				gemmInt8(got, n, a, lda, m, q, bias, flags, &qscratch{})
			}
			// The float sums' rounding measured below 1e-7·k·n here; one
			// weight off by a level moves a value by about n/127.
			for i := range got {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-6*float64(k)*float64(n)+1e-6 {
					t.Fatalf("m%d k%d n%d lda%d flags%d nonNeg=%v: c[%d] = %v, float on the rounded values %v", m, k, n, lda, flags, nonNeg, i, got[i], want[i])
				}
			}
		}
	}
}

// int8Kernels lists the int8 kernels this processor runs.
func int8Kernels(t testing.TB) []string {
	var ks []string
	for _, k := range kernels() {
		if isInt8(k) {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		t.Skip("no int8 kernel on this processor")
	}
	return ks
}

// TestInt8NearFloat checks the rounding itself: the int8 product stays
// within 1% (root mean square) of the float product of the unrounded
// values, 2% with the AVX2 kernel's coarser weights.
func TestInt8NearFloat(t *testing.T) {
	for _, kern := range int8Kernels(t) {
		madd := kern == int8MaddName
		r := rand.New(rand.NewPCG(11, 12))
		m, k, n := 50, 512, 64
		a := randSlice(r, m*k)
		w := randSlice(r, k*n)
		want := make([]float32, m*n)
		gemm(want, n, a, k, m, packMatrix(w, k, n), nil, 0, &scratch{})
		got := make([]float32, m*n)
		gemmInt8(got, n, a, k, m, quantizeMatrix(w, k, n, madd), nil, 0, &qscratch{})
		var e, s float64
		for i := range got {
			e += float64(got[i]-want[i]) * float64(got[i]-want[i])
			s += float64(want[i]) * float64(want[i])
		}
		bar := 0.01
		if madd {
			bar = 0.02
		}
		rel := math.Sqrt(e / s)
		t.Logf("%s: relative error %.4f", kern, rel)
		if rel > bar {
			t.Errorf("%s: relative error %.4f, want ≤ %v", kern, rel, bar)
		}
	}
}

// TestInt8MaddEdges drives the AVX2 int8 kernel at the ends of its range,
// where VPMADDUBSW would saturate a pair of products were the weights
// rounded as finely as for VNNI: inputs at their row's largest magnitude
// (bytes 255 and 1) against weights at their column's (±maxLevels), every
// sign pattern, and k long enough for the int32 sums to grow large. The
// sums must be exact, so the result equals the float product of the
// rounded values.
func TestInt8MaddEdges(t *testing.T) {
	if !int8MaddOK {
		t.Skip("no AVX2 int8 kernel on this processor")
	}
	const m, n = 7, 32
	for _, k := range []int{4, 8, 130, 1536} {
		for pattern := range 6 {
			a := make([]float32, m*k)
			w := make([]float32, k*n)
			for i := range a {
				a[i] = 3
				switch {
				case pattern&1 != 0:
					a[i] = -3
				case pattern >= 4 && i%2 == 1:
					a[i] = -3 // pairs of opposite sign
				}
			}
			for i := range w {
				w[i] = 0.5
				if pattern&2 != 0 || pattern == 5 && i/n%2 == 0 {
					w[i] = -0.5
				}
			}
			want := make([]float32, m*n)
			gemm(want, n, dequantizeRows(a, k, m, k), k, m, packMatrix(dequantizeMatrix(w, k, n, maddLevels), k, n), nil, 0, &scratch{})
			got := make([]float32, m*n)
			gemmInt8(got, n, a, k, m, quantizeMatrix(w, k, n, true), nil, 0, &qscratch{})
			for i := range got {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*math.Abs(float64(want[i]))+1e-6 {
					t.Fatalf("k%d pattern %d: c[%d] = %v, want %v", k, pattern, i, got[i], want[i])
				}
			}
		}
	}
}

// int8Bar is the cosine each int8 kernel's vectors keep to the float ones
// and the reference: 0.999 for VNNI (the float kernels meet 0.9999), 0.998
// for the AVX2 kernel, whose weights have half the levels (it measured
// 0.9985 at worst, on short texts, which is one reason it is not the
// default: issue 30 asked for 0.999).
func int8Bar(kern string) float64 {
	if kern == int8MaddName {
		return 0.998
	}
	return 0.999
}

// TestInt8KernelMatchesReference holds the int8 kernels to the TF.js
// vectors at their own bar.
func TestInt8KernelMatchesReference(t *testing.T) {
	for _, kern := range int8Kernels(t) {
		t.Run(kern, func(t *testing.T) { testVectorsAt(t, loadKernel(t, kern), int8Bar(kern)) })
	}
}

// TestInt8MatchesFloatKernel compares each int8 kernel's vectors with the
// float kernel's (AVX2) on the benchmark's passages and the reference's
// texts: each within its int8Bar. It also checks that a text's vector
// does not depend on the texts batched with it, which holds because rows
// are quantised one by one.
func TestInt8MatchesFloatKernel(t *testing.T) {
	kerns := int8Kernels(t)
	var texts []string
	for i := range 64 {
		texts = append(texts, passage(i))
	}
	for _, c := range loadOracle(t) {
		texts = append(texts, c.Text)
	}
	ctx := context.Background()
	want, err := loadKernel(t, simdName).Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for _, kern := range kerns {
		t.Run(kern, func(t *testing.T) { testInt8MatchesFloat(t, kern, texts, want) })
	}
}

func testInt8MatchesFloat(t *testing.T, kern string, texts []string, want [][]float32) {
	ctx := context.Background()
	m := loadKernel(t, kern)
	got, err := m.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	worst := 1.0
	for i := range got {
		c := cosine(got[i], want[i])
		worst = min(worst, c)
		if bar := int8Bar(kern); c < bar {
			t.Errorf("%.40q: cosine(%s, %s) = %.5f, want ≥ %v", texts[i], kern, simdName, c, bar)
		}
	}
	t.Logf("worst cosine to %s over %d texts: %.5f", simdName, len(texts), worst)
	for _, i := range []int{0, 63, 64, len(texts) - 1} {
		one, err := m.embedIDs(ctx, [][]int32{m.tok.encode(normalize(texts[i]))}, runtime.GOMAXPROCS(0), false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(one[0], got[i]) {
			t.Errorf("%.40q: vector alone differs from the vector in a batch", texts[i])
		}
	}
}

func BenchmarkGemmInt8(b *testing.B) {
	int8Kernels(b)
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][3]int{{128, 512, 1536}, {128, 1536, 512}, {128, 512, 512}, {1, 512, 1536}} {
		m, k, n := sh[0], sh[1], sh[2]
		a := randSlice(r, m*k)
		wf := randSlice(r, k*n)
		bits := randHalf(r, k*n)
		wh := packHalf(bits, k, n)
		wq := quantizeMatrix(wf, k, n, false)
		c := make([]float32, m*n)
		flops := 2 * float64(m*k*n)
		run := func(b *testing.B, f func()) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				f()
			}
			b.ReportMetric(flops*float64(b.N)/(cpuTime()-cpu0).Seconds()/1e9, "GFLOPS/cpu")
		}
		b.Run(fmt.Sprintf("%dx%dx%d/%s-half", m, k, n, simdName), func(b *testing.B) {
			s := &scratch{}
			run(b, func() { gemm(c, n, a, k, m, wh, nil, 0, s) })
		})
		if int8OK {
			b.Run(fmt.Sprintf("%dx%dx%d/int8", m, k, n), func(b *testing.B) {
				s := &qscratch{}
				run(b, func() { gemmInt8(c, n, a, k, m, wq, nil, 0, s) })
			})
		}
		if int8MaddOK {
			wm := quantizeMatrix(wf, k, n, true)
			b.Run(fmt.Sprintf("%dx%dx%d/%s", m, k, n, int8MaddName), func(b *testing.B) {
				s := &qscratch{}
				run(b, func() { gemmInt8(c, n, a, k, m, wm, nil, 0, s) })
			})
		}
		if int8EVEXOK && !int8EVEX {
			b.Run(fmt.Sprintf("%dx%dx%d/int8-evex", m, k, n), func(b *testing.B) {
				int8EVEX = true
				defer func() { int8EVEX = false }()
				s := &qscratch{}
				run(b, func() { gemmInt8(c, n, a, k, m, wq, nil, 0, s) })
			})
		}
	}
}
