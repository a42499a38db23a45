package use

import "math"

// The int8 kernel: weights quantised once, at load, to signed bytes with
// one scale per column per block of qBlock rows of k; each product's input
// rows quantised as it runs, to bytes with one scale per row per block.
// The kernel sums byte products exactly in int32 (VPDPBUSD) and scales the
// sums to float32 once per block.
//
// On AVX2 without VNNI, VPMADDUBSW multiplies the same bytes but adds each
// pair of products into an int16 with saturation: an input byte (up to
// 255) times a weight of 127, twice, would overflow it. Weights for that
// kernel are rounded to maddLevels levels either side of zero instead, so
// a pair is at most 2·255·64 = 32,640 and the sums stay exact; VPMADDWD
// then adds the pairs into int32.

// qBlock is the depth of one quantisation block: each row of A and each
// column of B gets its own scale per qBlock values of k, and the kernel
// turns its integer sums into floats once per block. It does not depend on
// the number of rows, so a text's vector does not depend on what it is
// batched with.
const qBlock = 128

// int8Levels and maddLevels are the largest weight magnitude for the VNNI
// kernel and for the AVX2 one.
const (
	int8Levels = 127
	maddLevels = 64
)

// qpacked is a k×n weight matrix quantised for the int8 kernel, as n/16
// panels of 16 columns. A panel holds, block after block of qBlock rows of
// k, groups of four rows: 16 columns × the four rows' bytes. For panel p,
// block blk and column j of the panel, scale[(p·blocks+blk)·16+j] is the
// column's scale in the block and zc[…] 128 times the sum of its bytes
// there (what the offset of A's bytes adds to a sum). madd says the
// weights are within ±maddLevels, for the AVX2 kernel.
type qpacked struct {
	k, n   int
	groups int // four-row groups in all blocks: a panel is groups×64 bytes
	madd   bool
	data   []int8
	scale  []float32
	zc     []int32
}

// blockGroups is the number of four-row groups of a block kc rows deep.
func blockGroups(kc int) int { return (kc + 3) / 4 }

func qBlocks(k int) int { return (k + qBlock - 1) / qBlock }

// columns returns panels [p0, p1) as a matrix of their own.
func (q *qpacked) columns(p0, p1 int) *qpacked {
	per := qBlocks(q.k) * tileCols
	return &qpacked{k: q.k, n: (p1 - p0) * tileCols, groups: q.groups, madd: q.madd,
		data:  q.data[p0*q.groups*64 : p1*q.groups*64],
		scale: q.scale[p0*per : p1*per],
		zc:    q.zc[p0*per : p1*per],
	}
}

// quantizeMatrix quantises a row-major k×n matrix (n a multiple of 16),
// rounding each column of each block to the nearest of 255 levels
// symmetric about zero, or of 129 for the AVX2 kernel (madd).
func quantizeMatrix(w []float32, k, n int, madd bool) *qpacked {
	q := &qpacked{k: k, n: n, madd: madd}
	levels := float32(int8Levels)
	if madd {
		levels = maddLevels
	}
	blocks := qBlocks(k)
	for k0 := 0; k0 < k; k0 += qBlock {
		q.groups += blockGroups(min(qBlock, k-k0))
	}
	q.data = make([]int8, q.groups*64*(n/tileCols))
	q.scale = make([]float32, blocks*n)
	q.zc = make([]int32, blocks*n)
	i := 0
	for c := 0; c < n; c += tileCols {
		for blk := 0; blk < blocks; blk++ {
			k0 := blk * qBlock
			kc := min(qBlock, k-k0)
			sc := q.scale[(c/tileCols*blocks+blk)*tileCols:][:tileCols]
			zc := q.zc[(c/tileCols*blocks+blk)*tileCols:][:tileCols]
			var mx, inv [tileCols]float32
			for p := k0; p < k0+kc; p++ {
				row := w[p*n+c : p*n+c+tileCols]
				for jj, v := range row {
					if v > mx[jj] {
						mx[jj] = v
					} else if -v > mx[jj] {
						mx[jj] = -v
					}
				}
			}
			for jj, m := range mx {
				sc[jj] = m / levels
				if m > 0 {
					inv[jj] = levels / m
				}
			}
			for g := 0; g < blockGroups(kc); g++ {
				for jj := range tileCols {
					for r := 0; r < 4; r++ {
						var v int8
						if p := k0 + 4*g + r; p < k0+kc {
							v = roundInt8(w[p*n+c+jj] * inv[jj])
						}
						q.data[i] = v
						zc[jj] += 128 * int32(v)
						i++
					}
				}
			}
		}
	}
	return q
}

// roundInt8 rounds x, at most int8Levels in magnitude, to the nearest integer,
// half-way values away from zero, as math.Round does (at a tenth of its
// cost at load).
func roundInt8(x float32) int8 {
	if x < 0 {
		return -int8(int32(0.5 - x))
	}
	return int8(int32(x + 0.5))
}

// qscratch is one worker's quantised rows of A and their scales.
type qscratch struct {
	a  []uint8
	rs []float32
	c  [tileRows * tileCols]float32
}

// gemmInt8 computes C = A·B + bias (plus C when flags&accumulate, clamped
// when flags&relu) like gemm, on int8 weights.
func gemmInt8(c []float32, ldc int, a []float32, lda int, m int, b *qpacked, bias []float32, flags int, s *qscratch) {
	if m == 0 {
		return
	}
	if bias == nil {
		bias = zeros[:b.n]
	}
	tiles := (m + tileRows - 1) / tileRows
	if need := tiles * tileRows * qBlock; len(s.a) < need {
		s.a = make([]uint8, need)
		s.rs = make([]float32, tiles*tileRows)
	}
	blocks := qBlocks(b.k)
	goff := 0
	for blk := 0; blk < blocks; blk++ {
		k0 := blk * qBlock
		kc := min(qBlock, b.k-k0)
		k4 := blockGroups(kc)
		f, bs := flags, bias
		if k0 > 0 {
			f, bs = flags|accumulate, zeros[:b.n]
		}
		if k0+kc < b.k {
			f &^= relu
		}
		quantizeRows(s.a, s.rs, a[k0:], lda, m, kc)
		for p := 0; p < b.n/tileCols; p++ {
			bp := b.data[(p*b.groups+goff)*64 : (p*b.groups+goff+k4)*64]
			col := p * tileCols
			meta := (p*blocks + blk) * tileCols
			cs := b.scale[meta : meta+tileCols]
			zc := b.zc[meta : meta+tileCols]
			for t := 0; t < tiles; t++ {
				ap := s.a[t*tileRows*k4*4 : (t+1)*tileRows*k4*4]
				rs := s.rs[t*tileRows : (t+1)*tileRows]
				r := t * tileRows
				if rest := m - r; rest < tileRows {
					// Stage a short last tile so the kernel never writes
					// past the caller's rows.
					if f&accumulate != 0 {
						for i := 0; i < rest; i++ {
							copy(s.c[i*tileCols:(i+1)*tileCols], c[(r+i)*ldc+col:])
						}
					}
					tileInt8(b.madd, ap, bp, k4, s.c[:], tileCols, bs[col:], f, rs, cs, zc)
					for i := 0; i < rest; i++ {
						copy(c[(r+i)*ldc+col:(r+i)*ldc+col+tileCols], s.c[i*tileCols:(i+1)*tileCols])
					}
					continue
				}
				tileInt8(b.madd, ap, bp, k4, c[r*ldc+col:], ldc, bs[col:], f, rs, cs, zc)
			}
		}
		goff += k4
	}
}

// tileInt8 runs the int8 kernel on one 6×16 block of C (the AVX2 one for
// weights quantised for it, madd), checking the bounds it relies on.
func tileInt8(madd bool, a []uint8, b []int8, k4 int, c []float32, ldc int, bias []float32, flags int, rs, cs []float32, zc []int32) {
	_ = a[tileRows*4*k4-1]
	_ = b[tileCols*4*k4-1]
	_ = c[(tileRows-1)*ldc+tileCols-1]
	_, _, _, _ = bias[tileCols-1], rs[tileRows-1], cs[tileCols-1], zc[tileCols-1]
	switch {
	case madd:
		kernelInt8Madd6x16(&a[0], &b[0], k4, &c[0], ldc*4, &bias[0], flags, &rs[0], &cs[0], &zc[0])
		return
	case int8EVEX:
		kernelInt8x6x16EVEX(&a[0], &b[0], k4, &c[0], ldc*4, &bias[0], flags, &rs[0], &cs[0], &zc[0])
		return
	}
	kernelInt8x6x16(&a[0], &b[0], k4, &c[0], ldc*4, &bias[0], flags, &rs[0], &cs[0], &zc[0])
}

// quantizeRows quantises kc values of each of m rows of a (rows lda
// apart) and packs them for the kernel: tiles of six rows, each k4 groups
// of the six rows' four bytes. A row gets scale max|x|/127 and bytes
// 128+round(x/scale) (the offset makes them unsigned, as VPDPBUSD wants
// them; the weights' zc takes it off again). Rows past m up to the tile
// are zero with scale zero.
func quantizeRows(dst []uint8, rs []float32, a []float32, lda, m, kc int) {
	const zero = 128
	k4 := blockGroups(kc)
	tiles := (m + tileRows - 1) / tileRows
	for i := 0; i < tiles*tileRows; i++ {
		t, ri := i/tileRows, i%tileRows
		d := dst[t*tileRows*k4*4:]
		if i >= m {
			rs[i] = 0
			for g := 0; g < k4; g++ {
				copy(d[g*24+ri*4:g*24+ri*4+4], []uint8{zero, zero, zero, zero})
			}
			continue
		}
		row := a[i*lda : i*lda+kc]
		mx := maxAbs(row)
		var inv float32
		rs[i] = mx / 127
		if mx > 0 {
			inv = 127 / mx
		}
		// Adding 128.5 before truncating rounds half up, values being at
		// least 1 by then.
		const bias = zero + 0.5
		o := d[ri*4:]
		g := 0
		for ; 4*g+4 <= kc; g++ {
			x := row[4*g : 4*g+4 : 4*g+4]
			q := o[g*24 : g*24+4 : g*24+4]
			q[0] = uint8(int32(x[0]*inv + bias))
			q[1] = uint8(int32(x[1]*inv + bias))
			q[2] = uint8(int32(x[2]*inv + bias))
			q[3] = uint8(int32(x[3]*inv + bias))
		}
		if g < k4 {
			q := o[g*24 : g*24+4]
			for r := range q {
				q[r] = zero
				if p := 4*g + r; p < kc {
					q[r] = uint8(int32(row[p]*inv + bias))
				}
			}
		}
	}
}

// maxAbs returns the largest magnitude in x. (Go's max on floats, which
// orders NaNs and signed zeros, ran at a twentieth of this speed.)
func maxAbs(x []float32) float32 {
	var m0, m1 uint32
	for ; len(x) >= 2; x = x[2:] {
		b0, b1 := math.Float32bits(x[0])&0x7fffffff, math.Float32bits(x[1])&0x7fffffff
		if b0 > m0 {
			m0 = b0
		}
		if b1 > m1 {
			m1 = b1
		}
	}
	if len(x) == 1 {
		if b := math.Float32bits(x[0]) & 0x7fffffff; b > m0 {
			m0 = b
		}
	}
	// Non-negative floats order as their bits do.
	return math.Float32frombits(max(m0, m1))
}
