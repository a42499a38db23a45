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
// each column's qBlock-deep blocks rounded to 255 levels symmetric about
// zero.
func dequantizeMatrix(w []float32, k, n int) []float32 {
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
				q := float32(math.Round(float64(w[p*n+j] * float32(127/mx))))
				out[p*n+j] = q * float32(mx/127)
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
// Where the processor runs both encodings of VPDPBUSD, it tests both.
func TestInt8MatchesGemm(t *testing.T) {
	if !int8OK {
		t.Skip("no int8 kernel on this processor")
	}
	forms := []bool{int8EVEX}
	if int8EVEXOK && !int8EVEX {
		forms = append(forms, true)
	}
	saved := int8EVEX
	defer func() { int8EVEX = saved }()
	for _, evex := range forms {
		int8EVEX = evex
		t.Run(fmt.Sprintf("evex=%v", evex), testInt8MatchesGemm)
	}
}

func testInt8MatchesGemm(t *testing.T) {
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
			gemm(want, n, dequantizeRows(a, lda, m, k), k, m, packMatrix(dequantizeMatrix(w, k, n), k, n), bias, flags, &scratch{})
			q := quantizeMatrix(w, k, n)
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

// TestInt8NearFloat checks the rounding itself: the int8 product stays
// within 1% (root mean square) of the float product of the unrounded
// values.
func TestInt8NearFloat(t *testing.T) {
	if !int8OK {
		t.Skip("no int8 kernel on this processor")
	}
	r := rand.New(rand.NewPCG(11, 12))
	m, k, n := 50, 512, 64
	a := randSlice(r, m*k)
	w := randSlice(r, k*n)
	want := make([]float32, m*n)
	gemm(want, n, a, k, m, packMatrix(w, k, n), nil, 0, &scratch{})
	got := make([]float32, m*n)
	gemmInt8(got, n, a, k, m, quantizeMatrix(w, k, n), nil, 0, &qscratch{})
	var e, s float64
	for i := range got {
		e += float64(got[i]-want[i]) * float64(got[i]-want[i])
		s += float64(want[i]) * float64(want[i])
	}
	if rel := math.Sqrt(e / s); rel > 0.01 {
		t.Errorf("relative error %.4f, want ≤ 0.01", rel)
	}
}

// TestInt8KernelMatchesReference holds the int8 kernel to the TF.js
// vectors at its own bar, cosine 0.999 (the float kernels meet 0.9999).
func TestInt8KernelMatchesReference(t *testing.T) {
	if !int8OK {
		t.Skip("no int8 kernel on this processor")
	}
	testVectorsAt(t, loadKernel(t, "int8"), 0.999)
}

// TestInt8MatchesFloatKernel compares the int8 kernel's vectors with the
// float kernel's (AVX2) on the benchmark's passages and the reference's
// texts: each within cosine 0.999. It also checks that a text's vector
// does not depend on the texts batched with it, which holds because rows
// are quantised one by one.
func TestInt8MatchesFloatKernel(t *testing.T) {
	if !int8OK {
		t.Skip("no int8 kernel on this processor")
	}
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
	m := loadKernel(t, "int8")
	got, err := m.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	worst := 1.0
	for i := range got {
		c := cosine(got[i], want[i])
		worst = min(worst, c)
		if c < 0.999 {
			t.Errorf("%.40q: cosine(int8, %s) = %.5f, want ≥ 0.999", texts[i], simdName, c)
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
	if !int8OK {
		b.Skip("no int8 kernel on this processor")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][3]int{{128, 512, 1536}, {128, 1536, 512}, {128, 512, 512}, {1, 512, 1536}} {
		m, k, n := sh[0], sh[1], sh[2]
		a := randSlice(r, m*k)
		wf := randSlice(r, k*n)
		bits := randHalf(r, k*n)
		wh := packHalf(bits, k, n)
		wq := quantizeMatrix(wf, k, n)
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
		b.Run(fmt.Sprintf("%dx%dx%d/int8", m, k, n), func(b *testing.B) {
			s := &qscratch{}
			run(b, func() { gemmInt8(c, n, a, k, m, wq, nil, 0, s) })
		})
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
