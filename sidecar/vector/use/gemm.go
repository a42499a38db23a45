package use

// Matrix products run through one 6×16 micro-kernel (AVX2/FMA or SSE
// assembly on amd64, NEON on arm64, plain Go elsewhere or when asked). Weights are packed once, at Load, into panels
// of 16 columns so the kernel reads them contiguously.

const (
	tileRows = 6
	tileCols = 16
	// blockBytes bounds the rows of A kept hot while one weight panel is
	// reused against them; about a third of a 512 KiB L2.
	blockBytes = 192 << 10
	// kcBlock is the depth of one pass: 256×16 floats of B is 16 KiB, half
	// of L1.
	kcBlock = 256
	// shortRows is the row count up to which a product skips k blocking.
	shortRows = 4 * tileRows
)

// Kernel flags.
const (
	accumulate = 1 // add the product to what C already holds
	relu       = 2 // clamp the result at zero
)

// packed is a k×n matrix stored as n/16 panels of k rows × 16 columns,
// either as float32 (data) or, for weights, as float16 bits (half) or
// quantised for the int8 kernel (q).
type packed struct {
	k, n int
	data []float32
	half []uint16
	q    *qpacked
}

// columns returns panels [p0, p1) as a matrix of their own.
func (b packed) columns(p0, p1 int) packed {
	panel := b.k * tileCols
	sub := packed{k: b.k, n: (p1 - p0) * tileCols}
	if b.q != nil {
		sub.q = b.q.columns(p0, p1)
	} else if b.half != nil {
		sub.half = b.half[p0*panel : p1*panel]
	} else {
		sub.data = b.data[p0*panel : p1*panel]
	}
	return sub
}

// packHalf packs a row-major k×n matrix of float16 bits.
func packHalf(w []uint16, k, n int) packed {
	p := packed{k: k, n: n, half: make([]uint16, k*n)}
	i := 0
	for c := 0; c < n; c += tileCols {
		for r := 0; r < k; r++ {
			copy(p.half[i:i+tileCols], w[r*n+c:r*n+c+tileCols])
			i += tileCols
		}
	}
	return p
}

// packMatrix packs a row-major k×n matrix; n must be a multiple of 16.
func packMatrix(w []float32, k, n int) packed {
	p := packed{k: k, n: n, data: make([]float32, k*n)}
	packInto(p.data, w, k, n, n)
	return p
}

// packInto packs the k×n matrix at w (rows ld floats apart) into dst.
func packInto(dst, w []float32, k, n, ld int) {
	i := 0
	for c := 0; c < n; c += tileCols {
		for r := 0; r < k; r++ {
			copy(dst[i:i+tileCols], w[r*ld+c:r*ld+c+tileCols])
			i += tileCols
		}
	}
}

// packTransposed packs the transpose of the rows×k matrix at w (rows ld
// floats apart) as a k×rows16 matrix, rows16 = rows rounded up to 16, with
// zero columns past rows.
func packTransposed(dst, w []float32, rows, k, ld int) {
	rows16 := roundUp(rows, tileCols)
	i := 0
	for c := 0; c < rows16; c += tileCols {
		for r := 0; r < k; r++ {
			for j := 0; j < tileCols; j++ {
				if c+j < rows {
					dst[i] = w[(c+j)*ld+r]
				} else {
					dst[i] = 0
				}
				i++
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// scratch is one worker's packing buffer for A and staging tile for C.
type scratch struct {
	a [blockBytes/4 + tileRows*kcBlock + shortRows*1536]float32
	c [tileRows * tileCols]float32
}

// zeros stands in for a missing bias.
var zeros [1536]float32

// gemm computes C = A·B + bias (plus C when flags&accumulate, clamped when
// flags&relu) for m rows. A rows are lda floats apart, C rows ldc apart.
//
// Blocking follows the usual recipe: a kc-deep slice of one weight panel
// (kc×16 floats, 16 KiB) stays in L1 while it meets every row of an mc-row
// block of A, which is packed six rows at a time into one stream in L2.
func gemm(c []float32, ldc int, a []float32, lda int, m int, b packed, bias []float32, flags int, s *scratch) {
	if m == 0 {
		return
	}
	if bias == nil {
		bias = zeros[:b.n]
	}
	k := b.k
	panel := k * tileCols
	depth := kcBlock
	if m <= shortRows {
		// Few rows reuse each weight little; streaming whole panels, which
		// lie end to end, reads the matrix front to back, which the
		// hardware prefetcher follows best.
		depth = k
	}
	for k0 := 0; k0 < k; k0 += depth {
		kc := min(depth, k-k0)
		f, bs := flags, bias
		if k0 > 0 {
			f, bs = flags|accumulate, zeros[:b.n]
		}
		if k0+kc < k {
			f &^= relu
		}
		mc := max(blockBytes/(4*kc)/tileRows*tileRows, tileRows)
		for r0 := 0; r0 < m; r0 += mc {
			rows := min(mc, m-r0)
			tiles := (rows + tileRows - 1) / tileRows
			packA(s.a[:tiles*tileRows*kc], a[r0*lda+k0:], lda, rows, kc)
			for p := 0; p < b.n/tileCols; p++ {
				var bp []float32
				var bh []uint16
				if b.half != nil {
					bh = b.half[p*panel+k0*tileCols : p*panel+(k0+kc)*tileCols]
				} else {
					bp = b.data[p*panel+k0*tileCols : p*panel+(k0+kc)*tileCols]
				}
				for t := 0; t < tiles; t++ {
					ap := s.a[t*tileRows*kc : (t+1)*tileRows*kc]
					r := r0 + t*tileRows
					col := p * tileCols
					if rest := m - r; rest < tileRows {
						// Stage a short last tile so the kernel never
						// writes past the caller's rows.
						if f&accumulate != 0 {
							for i := 0; i < rest; i++ {
								copy(s.c[i*tileCols:(i+1)*tileCols], c[(r+i)*ldc+col:])
							}
						}
						tile(ap, bp, bh, kc, s.c[:], tileCols, bs[col:], f)
						for i := 0; i < rest; i++ {
							copy(c[(r+i)*ldc+col:(r+i)*ldc+col+tileCols], s.c[i*tileCols:(i+1)*tileCols])
						}
						continue
					}
					tile(ap, bp, bh, kc, c[r*ldc+col:], ldc, bs[col:], f)
				}
			}
		}
	}
}

// packA copies rows×kc of A (rows lda apart) into dst as tiles of six rows,
// each tile kc groups of six values; rows past the end are zero.
func packA(dst, a []float32, lda, rows, kc int) {
	for t := 0; t*tileRows < rows; t++ {
		d := dst[t*tileRows*kc : (t+1)*tileRows*kc]
		r := t * tileRows
		if rows-r < tileRows {
			clear(d)
			for i := 0; i < rows-r; i++ {
				src := a[(r+i)*lda : (r+i)*lda+kc]
				for p, v := range src {
					d[p*tileRows+i] = v
				}
			}
			continue
		}
		r0 := a[r*lda : r*lda+kc]
		r1 := a[(r+1)*lda : (r+1)*lda+kc]
		r2 := a[(r+2)*lda : (r+2)*lda+kc]
		r3 := a[(r+3)*lda : (r+3)*lda+kc]
		r4 := a[(r+4)*lda : (r+4)*lda+kc]
		r5 := a[(r+5)*lda : (r+5)*lda+kc]
		n := len(r0)
		r1, r2, r3, r4, r5 = r1[:n], r2[:n], r3[:n], r4[:n], r5[:n] // no checks below
		for p := range r0 {
			g := d[p*tileRows : p*tileRows+tileRows : p*tileRows+tileRows]
			g[0], g[1], g[2], g[3], g[4], g[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
		}
	}
}

// tile runs the micro-kernel on one 6×16 block of C from a packed A tile
// and a panel slice of B, float32 (b) or float16 (bh).
func tile(a, b []float32, bh []uint16, k int, c []float32, ldc int, bias []float32, flags int) {
	// Bounds the kernel relies on; cheap next to the k×96 multiply-adds.
	_ = a[tileRows*k-1]
	_ = c[(tileRows-1)*ldc+tileCols-1]
	_ = bias[tileCols-1]
	if bh != nil {
		_ = bh[k*tileCols-1]
		if haveSIMD {
			kernelHalf6x16(&a[0], 0, &bh[0], k, &c[0], ldc*4, &bias[0], flags)
			return
		}
		kernelGo(a, nil, bh, k, c, ldc, bias, flags)
		return
	}
	_ = b[k*tileCols-1]
	if haveSIMD {
		kernelPacked6x16(&a[0], 0, &b[0], k, &c[0], ldc*4, &bias[0], flags)
		return
	}
	if haveSSE {
		kernelSSE6x16(&a[0], &b[0], k, &c[0], ldc*4, &bias[0], flags)
		return
	}
	kernelGo(a, b, nil, k, c, ldc, bias, flags)
}

// kernelGo is the portable micro-kernel, the same sums in plain Go; B is
// float32 (b) or float16 (bh: only tests pass it, since weights are packed
// as float32 wherever no assembly kernel widens them in registers).
//
// It fills the tile one column at a time, six rows deep. Go's scheduler
// computes all the products of a loop step before the additions that feed
// the loop's accumulators, so those products and the accumulators must fit
// the sixteen float registers of amd64 together: six of each fit, the
// twelve of a 6×2 block spilled to the stack and ran at half the speed.
func kernelGo(a, b []float32, bh []uint16, k int, c []float32, ldc int, bias []float32, flags int) {
	if bh != nil {
		wide := make([]float32, k*tileCols)
		for i, h := range bh[:k*tileCols] {
			wide[i] = halfTable[h]
		}
		b = wide
	}
	a, b = a[:k*tileRows], b[:k*tileCols]
	_ = c[(tileRows-1)*ldc+tileCols-1]
	for j, bj := range bias[:tileCols] {
		s := kernelGo6x1(a, b, j, bj)
		for i, v := range s {
			p := &c[i*ldc+j]
			if flags&accumulate != 0 {
				v += *p
			}
			if flags&relu != 0 {
				v = max(v, 0)
			}
			*p = v
		}
	}
}

// kernelGo6x1 returns bias + A·B for column j of a packed six-row A tile and
// a 16-wide B panel, two steps of k per iteration (one step per iteration
// ran at two thirds of the speed). The loops reslice a and b instead of
// indexing them and mask the column, so the compiler proves every access
// in range and emits no bounds checks (check with
// -gcflags=-d=ssa/check_bce).
func kernelGo6x1(a, b []float32, j int, bias float32) [tileRows]float32 {
	j &= tileCols - 1
	c0, c1, c2, c3, c4, c5 := bias, bias, bias, bias, bias, bias
	for len(a) >= 2*tileRows && len(b) >= 2*tileCols {
		c0, c1, c2, c3, c4, c5 = madd6(c0, c1, c2, c3, c4, c5, a[:tileRows], b[:tileCols:tileCols][j])
		c0, c1, c2, c3, c4, c5 = madd6(c0, c1, c2, c3, c4, c5, a[tileRows:2*tileRows], b[tileCols : 2*tileCols : 2*tileCols][j])
		a, b = a[2*tileRows:], b[2*tileCols:]
	}
	if len(a) >= tileRows && len(b) >= tileCols {
		c0, c1, c2, c3, c4, c5 = madd6(c0, c1, c2, c3, c4, c5, a[:tileRows], b[:tileCols:tileCols][j])
	}
	return [tileRows]float32{c0, c1, c2, c3, c4, c5}
}

// madd6 is one step of k for six rows: c + g·b. It takes and returns the
// accumulators as six scalars because the compiler keeps those in
// registers once madd6 is inlined, whereas an array or a struct of six
// lives in memory (ten times slower). Its own copy keeps one slice check,
// which no call runs: inlined into kernelGo6x1 the check is proven away.
func madd6(c0, c1, c2, c3, c4, c5 float32, g []float32, b float32) (float32, float32, float32, float32, float32, float32) {
	g = g[:tileRows:tileRows]
	return c0 + g[0]*b, c1 + g[1]*b, c2 + g[2]*b, c3 + g[3]*b, c4 + g[4]*b, c5 + g[5]*b
}

// sparseMax is the share of nonzero values in A below which the sparse
// products run instead of the dense kernels. The hidden rows of the
// feed-forward layers come out of a ReLU and are about 7% nonzero on
// English passages; there BenchmarkGemmSparse measured the sparse product
// at about half the CPU time of the SSE kernel and an eighth of the
// portable one, and the AVX2 one at a fifth of the dense AVX2 kernel (the
// NEON one is assumed to compare alike: unmeasured, see the README). Its
// cost grows with the share of nonzeros, so the cut-offs keep a margin.
func sparseMax() float64 {
	switch {
	case haveSIMD:
		return 0.2
	case haveSSE:
		return 0.1
	}
	return 0.3
}

// sparseRows is how many rows gemmSparse lists the nonzeros of before it
// walks the weights: each 16-column panel (96 KiB for 1536 rows) is then
// read once for all of them while it sits in L2, instead of once a row.
const sparseRows = 64

// sparseScratch holds the nonzero values of up to sparseRows rows of A:
// row i's are idx[start[i]:start[i+1]] (their column in A times 16, an
// offset into a panel) and the same range of val.
type sparseScratch struct {
	idx   []int32
	val   []float32
	start [sparseRows + 1]int
}

func newSparseScratch(k int) *sparseScratch {
	// One spare entry: a row with no nonzeros after all the others still
	// points inside.
	return &sparseScratch{idx: make([]int32, sparseRows*k+1), val: make([]float32, sparseRows*k+1)}
}

// list records the nonzero values of rows rows of k values of a (rows
// lda apart).
func (s *sparseScratch) list(a []float32, lda, rows, k int) {
	nz := 0
	for i := 0; i < rows; i++ {
		s.start[i] = nz
		for p, v := range a[i*lda : i*lda+k] {
			if v != 0 {
				s.idx[nz], s.val[nz] = int32(p*tileCols), v
				nz++
			}
		}
	}
	s.start[rows] = nz
}

// sparseGroup is the number of panels sparseHalf64 fills at once.
const sparseGroup = 4

// gemmSparseHalf is gemmSparse for float16 weights, with the AVX2 or NEON
// kernel sparseHalf64 (b.n must be a multiple of 64). Each group of four panels
// (192 KiB for 1536 rows) meets the 64 listed rows while it sits in L2.
func gemmSparseHalf(c []float32, ldc int, a []float32, lda int, m int, b packed, bias []float32, flags int, s *sparseScratch) {
	if bias == nil {
		bias = zeros[:b.n]
	}
	k := b.k
	panel := k * tileCols
	width := sparseGroup * tileCols
	for r0 := 0; r0 < m; r0 += sparseRows {
		rows := min(sparseRows, m-r0)
		s.list(a[r0*lda:], lda, rows, k)
		for p := 0; p+sparseGroup <= b.n/tileCols; p += sparseGroup {
			w := b.half[p*panel : (p+sparseGroup)*panel]
			col := p * tileCols
			bs := bias[col : col+width]
			for i := 0; i < rows; i++ {
				lo, hi := s.start[i], s.start[i+1]
				out := c[(r0+i)*ldc+col : (r0+i)*ldc+col+width]
				sparseHalf64(&out[0], &w[0], panel*2, &s.idx[lo], &s.val[lo], hi-lo, &bs[0], flags)
			}
		}
	}
}

// gemmSparse is gemm for an A whose rows are mostly zeros, done over the
// nonzero values only: about a tenth of the multiply-adds on the ReLU
// output, in plain Go. B must be float32 (only the kernels without float16
// weights call it); s must have been made for at least b.k columns.
func gemmSparse(c []float32, ldc int, a []float32, lda int, m int, b packed, bias []float32, flags int, s *sparseScratch) {
	if bias == nil {
		bias = zeros[:b.n]
	}
	k := b.k
	panel := k * tileCols
	for r0 := 0; r0 < m; r0 += sparseRows {
		rows := min(sparseRows, m-r0)
		s.list(a[r0*lda:], lda, rows, k)
		for p := 0; p < b.n/tileCols; p++ {
			w := b.data[p*panel : (p+1)*panel]
			for i := 0; i < rows; i++ {
				ix := s.idx[s.start[i]:s.start[i+1]]
				vs := s.val[s.start[i]:s.start[i+1]]
				out := c[(r0+i)*ldc+p*tileCols : (r0+i)*ldc+(p+1)*tileCols]
				sparseRow(out, w, ix, vs, bias[p*tileCols:(p+1)*tileCols], flags)
			}
		}
	}
}

// sparseRow computes 16 columns of one row of C from the row's nonzero
// values (vs, at panel offsets ix) and a weight panel w.
func sparseRow(out, w []float32, ix []int32, vs []float32, bias []float32, flags int) {
	vs = vs[:len(ix)]
	out, bias = out[:tileCols], bias[:tileCols]
	for q := 0; q < tileCols; q += 4 {
		o := out[q : q+4 : q+4]
		bs := bias[q : q+4 : q+4]
		c0, c1, c2, c3 := bs[0], bs[1], bs[2], bs[3]
		if flags&accumulate != 0 {
			c0, c1, c2, c3 = c0+o[0], c1+o[1], c2+o[2], c3+o[3]
		}
		// Four columns at a time: four accumulators, four products and
		// the A value fit the registers of every architecture. (Sixteen
		// sums kept in memory, or two nonzeros a step, measured slower.)
		wq := w[q:]
		for t, off := range ix {
			j := int(off)
			g := wq[j : j+4 : j+4] // the one check in this loop
			v := vs[t]
			c0 += v * g[0]
			c1 += v * g[1]
			c2 += v * g[2]
			c3 += v * g[3]
		}
		if flags&relu != 0 {
			c0, c1, c2, c3 = max(c0, 0), max(c1, 0), max(c2, 0), max(c3, 0)
		}
		o[0], o[1], o[2], o[3] = c0, c1, c2, c3
	}
}
