package use

import (
	"fmt"
	"math"
)

// network holds the transformer's weights, matrices packed for gemm.
type network struct {
	maxTokens   int
	embDim      int       // 256
	emb         []float32 // vocabulary × embDim, if stored as float32
	embHalf     []uint16  // the same as float16 bits, if stored so
	vocab       int
	timing      []float32 // maxTokens × embDim sinusoids, one row per position
	layers      [2]layer
	pool        packed
	poolB       []float32
	lnEps       float32
	l2Eps       float32
	ffnWidth    int
	maxAttnDim  int
	maxQKVWidth int
}

// layer is one pre-norm transformer layer:
//
//	y = res(x) + out(attention(ln1(x)))
//	z = y + ffn2(relu(ffn1(ln2(y))))
//
// where res is a learned projection in the first layer (it widens 256→512)
// and the identity in the second.
type layer struct {
	in, width  int // input and output widths
	heads, hd  int // attention heads and their width
	qScale     float32
	ln1G, ln1B []float32
	qkv        packed // in → 3·in
	qkvB       []float32
	out        packed // in → width
	outB       []float32
	res        *packed // in → width, nil for identity
	resB       []float32
	ln2G, ln2B []float32
	ffn1       packed // width → ffnWidth
	ffn1B      []float32
	ffn2       packed // ffnWidth → width
	ffn2B      []float32
}

func newNetwork(h *header, ts map[string]tensor) (*network, error) {
	var err error
	getT := func(name string, shape ...int) tensor {
		t, ok := ts[name]
		if !ok {
			if err == nil {
				err = fmt.Errorf("tensor %s missing", name)
			}
			return tensor{}
		}
		if fmt.Sprint(t.shape) != fmt.Sprint(shape) {
			if err == nil {
				err = fmt.Errorf("tensor %s: shape %v, want %v", name, t.shape, shape)
			}
			return tensor{}
		}
		return t
	}
	get := func(name string, shape ...int) []float32 { return getT(name, shape...).floats() }
	// Weight matrices stay float16 (the file's precision) and are widened
	// inside the assembly kernel; elsewhere they are widened here. With
	// the int8 kernel those of dense products applied to every token row
	// are quantised (quant); the feed-forward layers' second products
	// skip the ReLU's zeros instead (mulHidden), and the others run once
	// per text, where float costs nothing.
	mat := func(name string, k, n int, quant bool) packed {
		t := getT(name, k, n)
		switch {
		case t.half != nil && haveInt8 && quant:
			return packed{k: k, n: n, q: quantizeMatrix(t.floats(), k, n, int8Madd)}
		case t.half != nil && haveSIMD:
			return packHalf(t.half, k, n)
		case t.half != nil:
			// The portable kernel is faster on float32 than widening.
			return packMatrix(t.floats(), k, n)
		case t.data != nil:
			return packMatrix(t.data, k, n)
		}
		return packed{}
	}
	constant := func(name string) float64 {
		v, ok := h.Consts[name]
		if !ok && err == nil {
			err = fmt.Errorf("constant %s missing", name)
		}
		return v
	}
	n := &network{
		maxTokens: int(constant("maxTokens")),
		embDim:    256,
		lnEps:     float32(constant("lnEpsilon")),
		l2Eps:     float32(constant("l2Epsilon")),
		ffnWidth:  1536,
	}
	embT, ok := ts["emb"]
	if !ok || len(embT.shape) != 2 || embT.shape[1] != n.embDim {
		return nil, fmt.Errorf("tensor emb: missing or not ×%d", n.embDim)
	}
	n.emb, n.embHalf, n.vocab = embT.data, embT.half, embT.shape[0]
	inv := get("timing", n.embDim/2)
	if err != nil {
		return nil, err
	}
	// The graph's timing signal: [sin(p·inv_i) …, cos(p·inv_i) …] for
	// position p, with the product rounded to float32 as TF does.
	n.timing = make([]float32, n.maxTokens*n.embDim)
	half := n.embDim / 2
	for p := 0; p < n.maxTokens; p++ {
		row := n.timing[p*n.embDim:]
		for i, f := range inv {
			t := float64(float32(p) * f)
			row[i] = float32(math.Sin(t))
			row[half+i] = float32(math.Cos(t))
		}
	}
	widths := [2][2]int{{256, 512}, {512, 512}}
	for l := range n.layers {
		in, w := widths[l][0], widths[l][1]
		p := fmt.Sprintf("l%d.", l)
		L := layer{in: in, width: w}
		L.hd = int(constant(p + "headDim"))
		L.qScale = float32(constant(p + "qScale"))
		if L.hd == 0 || in%L.hd != 0 {
			return nil, fmt.Errorf("layer %d: head width %d does not divide %d", l, L.hd, in)
		}
		L.heads = in / L.hd
		L.ln1G, L.ln1B = get(p+"ln1.g", in), get(p+"ln1.b", in)
		L.qkv, L.qkvB = mat(p+"qkv.w", in, 3*in, true), get(p+"qkv.b", 3*in)
		L.out, L.outB = mat(p+"out.w", in, w, true), get(p+"out.b", w)
		if l == 0 {
			res := mat(p+"res.w", in, w, true)
			L.res, L.resB = &res, get(p+"res.b", w)
		}
		L.ln2G, L.ln2B = get(p+"ln2.g", w), get(p+"ln2.b", w)
		L.ffn1, L.ffn1B = mat(p+"ffn1.w", w, n.ffnWidth, true), get(p+"ffn1.b", n.ffnWidth)
		L.ffn2, L.ffn2B = mat(p+"ffn2.w", n.ffnWidth, w, false), get(p+"ffn2.b", w)
		if err != nil {
			return nil, err
		}
		n.layers[l] = L
		n.maxAttnDim = max(n.maxAttnDim, in)
		n.maxQKVWidth = max(n.maxQKVWidth, 3*in)
	}
	n.pool, n.poolB = mat("pool.w", dims, dims, false), get("pool.b", dims)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// workspace is one worker's activations for up to rows token rows.
type workspace struct {
	rows    int
	x0      []float32 // rows × embDim: the layer-0 input
	h       []float32 // rows × 512: layer-norm output
	qkv     []float32 // rows × 1536
	ctx     []float32 // rows × 512: attention output before projection
	y       []float32 // rows × 512: the residual stream
	f       []float32 // 2·rows × ffnWidth: hidden rows, then their means
	kT, v   []float32 // packed keys and values of one head
	scores  []float32 // maxTokens × maxTokens(16)
	pooled  []float32 // sequences × dims: mean of the last layer
	pooled2 []float32 // sequences × dims: after the tanh layer
	s       scratch
	// split asks mul to share each weight product with a helper goroutine:
	// worth it when one short input (a query) would leave cores idle.
	split bool
	s2    scratch
	// q, q2 hold the quantised rows for the int8 kernel.
	q, q2 qscratch
	// sparse lists nonzero hidden values for gemmSparse.
	sparse *sparseScratch
}

func (n *network) newWorkspace(rows int) *workspace {
	t16 := roundUp(n.maxTokens, tileCols)
	return &workspace{
		rows:    rows,
		x0:      make([]float32, rows*n.embDim),
		h:       make([]float32, rows*dims),
		qkv:     make([]float32, rows*n.maxQKVWidth),
		ctx:     make([]float32, rows*n.maxAttnDim),
		y:       make([]float32, rows*dims),
		f:       make([]float32, 2*rows*n.ffnWidth),
		kT:      make([]float32, t16*n.maxAttnDim),
		v:       make([]float32, t16*n.maxAttnDim),
		scores:  make([]float32, n.maxTokens*t16),
		pooled:  make([]float32, rows*dims),
		pooled2: make([]float32, rows*dims),
		sparse:  newSparseScratch(n.ffnWidth),
	}
}

// forward embeds a group of sequences (at most ws.rows of them and ws.rows
// pieces in all, each at most maxTokens) into out.
func (n *network) forward(ws *workspace, seqs [][]int32, out [][]float32) {
	T := 0
	for _, s := range seqs {
		T += len(s)
	}
	// Layer-0 input: the graph adds the embedding to itself plus the timing
	// signal (it scatters the embedding, then adds embedding+timing).
	d := n.embDim
	r := 0
	for _, s := range seqs {
		for p, id := range s {
			row := ws.x0[r*d : (r+1)*d]
			t := n.timing[p*d : (p+1)*d]
			t = t[:len(row)] // lets the compiler drop the checks below
			if n.embHalf != nil {
				e := n.embHalf[int(id)*d : (int(id)+1)*d]
				e = e[:len(row)]
				for i := range row {
					v := halfTable[e[i]]
					row[i] = v + (v + t[i])
				}
			} else {
				e := n.emb[int(id)*d : (int(id)+1)*d]
				e = e[:len(row)]
				for i := range row {
					row[i] = e[i] + (e[i] + t[i])
				}
			}
			r++
		}
	}
	x, ldx := ws.x0, d
	last := len(n.layers) - 1
	for l := range n.layers {
		L := &n.layers[l]
		layerNorm(ws.h, x, T, L.in, ldx, L.ln1G, L.ln1B, n.lnEps)
		qw := 3 * L.in
		mul(ws, ws.qkv, qw, ws.h, L.in, T, L.qkv, L.qkvB, 0)
		n.attention(ws, L, seqs)
		if L.res != nil {
			mul(ws, ws.y, L.width, x, ldx, T, *L.res, L.resB, 0)
		}
		// With identity residual ws.y already holds x.
		mul(ws, ws.y, L.width, ws.ctx, L.in, T, L.out, L.outB, accumulate)
		layerNorm(ws.h, ws.y, T, L.width, L.width, L.ln2G, L.ln2B, n.lnEps)
		mul(ws, ws.f, n.ffnWidth, ws.h, L.width, T, L.ffn1, L.ffn1B, relu)
		if l == last {
			break
		}
		mulHidden(ws, ws.y, L.width, ws.f, n.ffnWidth, T, L.ffn2, L.ffn2B, accumulate)
		x, ldx = ws.y, L.width
	}
	// The model mean-pools the last layer's output y + ffn2(f) over each
	// sequence's rows (dividing by max(count, 1)). ffn2 is affine, so the
	// mean of its outputs is ffn2 of the mean of its inputs: pool y and f
	// first and run ffn2 once per sequence instead of once per row.
	L := &n.layers[last]
	pooledF := ws.f[T*n.ffnWidth:] // rows past T are free
	meanRows(ws.pooled, ws.y, seqs, dims)
	meanRows(pooledF, ws.f, seqs, n.ffnWidth)
	mul(ws, ws.pooled, dims, pooledF, n.ffnWidth, len(seqs), L.ffn2, L.ffn2B, accumulate)
	mul(ws, ws.pooled2, dims, ws.pooled, dims, len(seqs), n.pool, n.poolB, 0)
	for i := range seqs {
		v := ws.pooled2[i*dims : (i+1)*dims]
		var ss float32
		for j, x := range v {
			t := float32(math.Tanh(float64(x)))
			v[j] = t
			ss += t * t
		}
		scale := float32(1 / math.Sqrt(float64(max(ss, n.l2Eps))))
		o := out[i][:len(v)]
		for j, t := range v {
			o[j] = t * scale
		}
	}
}

// mul is gemm for weight products; with ws.split it gives the second half
// of the weight panels to a helper goroutine.
func mul(ws *workspace, c []float32, ldc int, a []float32, lda, m int, b packed, bias []float32, flags int) {
	panels := b.n / tileCols
	if !ws.split || panels < 2 {
		mulPart(c, ldc, a, lda, m, b, bias, flags, &ws.s, &ws.q)
		return
	}
	h := panels / 2
	lo, hi := b.columns(0, h), b.columns(h, panels)
	done := make(chan struct{})
	go func() {
		mulPart(c[h*tileCols:], ldc, a, lda, m, hi, bias[h*tileCols:], flags, &ws.s2, &ws.q2)
		close(done)
	}()
	mulPart(c, ldc, a, lda, m, lo, bias, flags, &ws.s, &ws.q)
	<-done
}

// mulPart runs a weight product on the int8 kernel or gemm, as b is
// stored.
func mulPart(c []float32, ldc int, a []float32, lda, m int, b packed, bias []float32, flags int, s *scratch, q *qscratch) {
	if b.q != nil {
		gemmInt8(c, ldc, a, lda, m, b.q, bias, flags, q)
		return
	}
	gemm(c, ldc, a, lda, m, b, bias, flags, s)
}

// sparseHalf lets benchmarks turn the AVX2/NEON sparse product off, to
// compare it with the dense one in one run.
var sparseHalf = true

// mulHidden is mul for the second product of a feed-forward layer, whose
// input comes out of a ReLU and is mostly zeros (about nine in ten on
// English passages): below sparseMax nonzeros it multiplies only the
// nonzero values, with sparseHalf64 (AVX2 or NEON) on float16 weights or
// in plain Go on float32 ones, several times faster than any dense
// product (the int8 kernel's among them, so it leaves these weights
// float16).
func mulHidden(ws *workspace, c []float32, ldc int, a []float32, lda, m int, b packed, bias []float32, flags int) {
	halfOK := sparseHalf && haveSIMD && sparseHalfOK && b.half != nil && b.n%(sparseGroup*tileCols) == 0
	if (halfOK || !haveSIMD && b.data != nil) && density(a, lda, m, b.k) < sparseMax() {
		if halfOK {
			gemmSparseHalf(c, ldc, a, lda, m, b, bias, flags, ws.sparse)
		} else {
			gemmSparse(c, ldc, a, lda, m, b, bias, flags, ws.sparse)
		}
		return
	}
	mul(ws, c, ldc, a, lda, m, b, bias, flags)
}

// density is the share of nonzero values among m rows of k values of a
// (rows lda apart).
func density(a []float32, lda, m, k int) float64 {
	if m == 0 || k == 0 {
		return 0
	}
	nz := 0
	for i := 0; i < m; i++ {
		for _, v := range a[i*lda : i*lda+k] {
			if v != 0 {
				nz++
			}
		}
	}
	return float64(nz) / float64(m*k)
}

// meanRows writes the mean of each sequence's rows of x (width w) to dst,
// one row per sequence; an empty sequence gets zeros.
func meanRows(dst, x []float32, seqs [][]int32, w int) {
	r := 0
	for i, s := range seqs {
		p := dst[i*w : (i+1)*w]
		clear(p)
		for range s {
			row := x[r*w : (r+1)*w]
			row = row[:len(p)]
			for j, v := range row {
				p[j] += v
			}
			r++
		}
		inv := 1 / float32(max(len(s), 1))
		for j := range p {
			p[j] *= inv
		}
	}
}

// attention runs multi-head self-attention of each sequence over its own
// rows of ws.qkv ([q | k | v], each L.in wide) into ws.ctx.
func (n *network) attention(ws *workspace, L *layer, seqs [][]int32) {
	qw := 3 * L.in
	r0 := 0
	for _, s := range seqs {
		t := len(s)
		if t == 0 {
			continue
		}
		t16 := roundUp(t, tileCols)
		for h := 0; h < L.heads; h++ {
			q := ws.qkv[r0*qw+h*L.hd:]
			k := ws.qkv[r0*qw+L.in+h*L.hd:]
			v := ws.qkv[r0*qw+2*L.in+h*L.hd:]
			packTransposed(ws.kT, k, t, L.hd, qw)
			gemm(ws.scores, t16, q, qw, t, packed{k: L.hd, n: t16, data: ws.kT}, nil, 0, &ws.s)
			for i := 0; i < t; i++ {
				softmax(ws.scores[i*t16:i*t16+t], L.qScale)
			}
			packInto(ws.v, v, t, L.hd, qw)
			gemm(ws.ctx[r0*L.in+h*L.hd:], L.in, ws.scores, t16, t, packed{k: t, n: L.hd, data: ws.v}, nil, 0, &ws.s)
		}
		r0 += t
	}
}

// softmax replaces row by softmax(scale·row).
func softmax(row []float32, scale float32) {
	m := float32(math.Inf(-1))
	for _, v := range row {
		m = max(m, v)
	}
	var sum float32
	head := 0
	if haveSIMD {
		head = len(row) &^ 7
		if head > 0 {
			sum = expShift(&row[0], head, m, scale)
		}
	}
	for i := head; i < len(row); i++ {
		e := exp32((row[i] - m) * scale)
		row[i] = e
		sum += e
	}
	inv := 1 / sum
	for i := range row {
		row[i] *= inv
	}
}

// layerNorm normalises rows of x (width w, rows ldx apart) into dst (rows w
// apart): (x-mean)·rsqrt(var+eps)·g + b, as the graph spells it out. The
// sums use four accumulators so they are not one long chain of dependent
// additions; w is a multiple of four.
func layerNorm(dst, x []float32, rows, w, ldx int, g, b []float32, eps float32) {
	inv := 1 / float32(w)
	for r := 0; r < rows; r++ {
		xr := x[r*ldx : r*ldx+w]
		dr := dst[r*w : (r+1)*w]
		// Walking by reslicing, and g, b and dr cut to xr's length, leave
		// the compiler no bounds to check in the loops.
		var s0, s1, s2, s3 float32
		for q := xr; len(q) >= 4; q = q[4:] {
			s0 += q[0]
			s1 += q[1]
			s2 += q[2]
			s3 += q[3]
		}
		mean := (s0 + s1 + s2 + s3) * inv
		var q0, q1, q2, q3 float32
		for q := xr; len(q) >= 4; q = q[4:] {
			c0, c1, c2, c3 := q[0]-mean, q[1]-mean, q[2]-mean, q[3]-mean
			q0 += c0 * c0
			q1 += c1 * c1
			q2 += c2 * c2
			q3 += c3 * c3
		}
		rs := float32(1 / math.Sqrt(float64((q0+q1+q2+q3)*inv+eps)))
		dr, g, b := dr[:len(xr)], g[:len(xr)], b[:len(xr)]
		for i, v := range xr {
			dr[i] = (v-mean)*rs*g[i] + b[i]
		}
	}
}

// exp32 is e^x for x ≤ 0 in float32 (relative error about 2e-7), several
// times cheaper than math.Exp; softmax calls it t² times per head. It is
// the Cephes expf polynomial with the power of two put in by hand.
func exp32(x float32) float32 {
	if x < -87 {
		return 0
	}
	const (
		log2e = 1.44269504088896341
		c1    = 0.693359375
		c2    = -2.12194440e-4
	)
	n := float32(int32(x*log2e - 0.5)) // round to nearest for x ≤ 0
	x = x - n*c1 - n*c2
	p := float32(1.9875691500e-4)
	p = p*x + 1.3981999507e-3
	p = p*x + 8.3334519073e-3
	p = p*x + 4.1665795894e-2
	p = p*x + 1.6666665459e-1
	p = p*x + 5.0000001201e-1
	p = p*x*x + x + 1
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}
