package hnsw

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"unsafe"
)

// The saved form, all integers little-endian:
//
//	magic "QUIREHNS", version uint32
//	header: dim, M, EfConstruction, Ef, Seed, VacuumRatio bits, slots,
//	        free count, tombstones, entry, maxLevel, empty, rng state length
//	        (uint64 each), rng state, CRC-32C of everything so far
//	body:   state [slots]byte, level [slots]byte, vectors [slots*dim]float32,
//	        layer-0 links [slots*(2M+1)]uint32, upper links of each slot with
//	        level>0 [level*(M+1)]uint32, free list [free]uint32,
//	        CRC-32C of the body
//
// The header has its own checksum so that a damaged size is caught before
// it is used to allocate memory. Loading copies arrays straight in: no
// rebuilding.
const (
	magic   = "QUIREHNS"
	version = 1
)

// ErrCorrupt is returned by Read for data that is truncated, fails its
// checksum, or does not describe a valid graph.
var ErrCorrupt = errors.New("hnsw: corrupt graph")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes the graph in its binary form. It holds the read lock, so
// searches go on while it runs.
func (g *Graph) WriteTo(w io.Writer) (int64, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{w: bw, crc: crc32.New(castagnoli), buf: make([]byte, 0, 1<<16)}

	rng, err := g.pcg.MarshalBinary()
	if err != nil {
		return 0, fmt.Errorf("write graph: %w", err)
	}
	e.bytes([]byte(magic))
	e.u32(version)
	var empty uint64
	if g.empty {
		empty = 1
	}
	for _, v := range []uint64{
		uint64(g.dim), uint64(g.cfg.M), uint64(g.cfg.EfConstruction), uint64(g.cfg.Ef),
		g.cfg.Seed, math.Float64bits(g.cfg.VacuumRatio), uint64(len(g.state)),
		uint64(len(g.free)), uint64(g.nTomb), uint64(g.entry), uint64(g.maxLevel), empty,
		uint64(len(rng)),
	} {
		e.u64(v)
	}
	e.bytes(rng)
	e.sum()

	e.bytes(g.state)
	e.bytes(g.level)
	for p, page := range g.pages {
		e.f32s(page[:min(pageSize, len(g.state)-p*pageSize)*g.dim])
	}
	e.u32s(g.links0)
	for i, l := range g.level {
		if l > 0 {
			e.u32s(g.upper[i])
		}
	}
	e.u32s(g.free)
	e.sum()
	if e.err == nil {
		e.err = bw.Flush()
	}
	if e.err != nil {
		return e.n, fmt.Errorf("write graph: %w", e.err)
	}
	return e.n, nil
}

type encoder struct {
	w   io.Writer
	crc hash.Hash32
	buf []byte
	n   int64
	err error
}

func (e *encoder) bytes(b []byte) {
	if e.err != nil {
		return
	}
	e.crc.Write(b)
	n, err := e.w.Write(b)
	e.n += int64(n)
	e.err = err
}

func (e *encoder) u32(v uint32) { e.bytes(binary.LittleEndian.AppendUint32(e.buf[:0], v)) }
func (e *encoder) u64(v uint64) { e.bytes(binary.LittleEndian.AppendUint64(e.buf[:0], v)) }

// sum writes the checksum of everything since the last sum.
func (e *encoder) sum() {
	s := e.crc.Sum32()
	e.crc.Reset()
	if e.err != nil {
		return
	}
	n, err := e.w.Write(binary.LittleEndian.AppendUint32(e.buf[:0], s))
	e.n += int64(n)
	e.err = err
}

// littleEndian is true on the platforms Quire ships for; there arrays are
// written and read as they lie in memory, which halves save and load time.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func u32Bytes(v []uint32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}

func f32Bytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}

func (e *encoder) u32s(vs []uint32) {
	if littleEndian {
		e.bytes(u32Bytes(vs))
		return
	}
	for len(vs) > 0 && e.err == nil {
		n := min(len(vs), cap(e.buf)/4)
		b := e.buf[:0]
		for _, v := range vs[:n] {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		e.bytes(b)
		vs = vs[n:]
	}
}

func (e *encoder) f32s(vs []float32) {
	if littleEndian {
		e.bytes(f32Bytes(vs))
		return
	}
	for len(vs) > 0 && e.err == nil {
		n := min(len(vs), cap(e.buf)/4)
		b := e.buf[:0]
		for _, v := range vs[:n] {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		e.bytes(b)
		vs = vs[n:]
	}
}

type decoder struct {
	r   *bufio.Reader
	crc hash.Hash32
	buf []byte
	err error
}

func (d *decoder) read(n int) []byte {
	if d.err != nil {
		return nil
	}
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		d.err = err
		return nil
	}
	d.crc.Write(b)
	return b
}

func (d *decoder) u32() uint32 {
	if b := d.read(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.read(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// check reads a stored checksum and compares it with the data since the
// last check.
func (d *decoder) check(what string) {
	want := d.crc.Sum32()
	got := d.u32()
	d.crc.Reset()
	if d.err == nil && got != want {
		d.err = fmt.Errorf("%w: %s checksum mismatch", ErrCorrupt, what)
	}
}

// into fills dst straight from the input.
func (d *decoder) into(dst []byte) {
	if d.err != nil {
		return
	}
	if _, err := io.ReadFull(d.r, dst); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		d.err = err
		return
	}
	d.crc.Write(dst)
}

func (d *decoder) u32s(dst []uint32) {
	if littleEndian {
		d.into(u32Bytes(dst))
		return
	}
	for len(dst) > 0 && d.err == nil {
		n := min(len(dst), 1<<14)
		b := d.read(4 * n)
		for i := range n {
			if b != nil {
				dst[i] = binary.LittleEndian.Uint32(b[4*i:])
			}
		}
		dst = dst[n:]
	}
}

func (d *decoder) f32s(dst []float32) {
	if littleEndian {
		d.into(f32Bytes(dst))
		return
	}
	for len(dst) > 0 && d.err == nil {
		n := min(len(dst), 1<<14)
		b := d.read(4 * n)
		for i := range n {
			if b != nil {
				dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		}
		dst = dst[n:]
	}
}

// Read loads a graph written by WriteTo. Damaged or truncated input yields
// an error wrapping ErrCorrupt, never a panic.
func Read(r io.Reader) (*Graph, error) {
	g, err := read(r)
	if err != nil {
		return nil, fmt.Errorf("read graph: %w", err)
	}
	return g, nil
}

func read(r io.Reader) (*Graph, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 1<<20), crc: crc32.New(castagnoli)}
	if string(d.read(len(magic))) != magic {
		if d.err != nil {
			return nil, d.err
		}
		return nil, fmt.Errorf("%w: not a graph file", ErrCorrupt)
	}
	if v := d.u32(); d.err == nil && v != version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrCorrupt, v, version)
	}
	var h [13]uint64
	for i := range h {
		h[i] = d.u64()
	}
	rngState := append([]byte(nil), d.read(int(min(h[12], 64)))...)
	d.check("header")
	if d.err != nil {
		return nil, d.err
	}
	dim, m, efc, ef := h[0], h[1], h[2], h[3]
	slots, nFree, nTomb, entry, maxLevel, empty := h[6], h[7], h[8], h[9], h[10], h[11]
	if dim == 0 || dim > 1<<16 || m < 2 || m > 1<<10 || slots > math.MaxUint32 ||
		nFree > slots || nTomb > slots || maxLevel >= maxLevels || empty > 1 ||
		(empty == 0 && entry >= slots) || h[12] > 64 {
		return nil, fmt.Errorf("%w: bad header", ErrCorrupt)
	}
	cfg := Config{M: int(m), EfConstruction: int(efc), Ef: int(ef), Seed: h[4],
		VacuumRatio: math.Float64frombits(h[5])}
	g := &Graph{cfg: cfg.withDefaults(), dim: int(dim), nTomb: int(nTomb),
		entry: uint32(entry), maxLevel: int(maxLevel), empty: empty == 1}
	g.init()
	g.pcg = new(rand.PCG)
	if err := g.pcg.UnmarshalBinary(rngState); err != nil {
		return nil, fmt.Errorf("%w: rng state: %v", ErrCorrupt, err)
	}
	g.rng = rand.New(g.pcg)

	n := int(slots)
	g.state = make([]uint8, n)
	g.level = make([]uint8, n)
	g.pages = make([][]float32, (n+pageSize-1)/pageSize)
	for p := range g.pages {
		g.pages[p] = make([]float32, pageSize*g.dim)
	}
	g.links0 = make([]uint32, n*(g.m0+1))
	g.upper = make([][]uint32, n)
	g.free = make([]uint32, nFree)
	d.into(g.state)
	d.into(g.level)
	for p, page := range g.pages {
		d.f32s(page[:min(pageSize, n-p*pageSize)*g.dim])
	}
	d.u32s(g.links0)
	for i, l := range g.level {
		if d.err != nil {
			break
		}
		if l >= maxLevels {
			return nil, fmt.Errorf("%w: node %d on level %d", ErrCorrupt, i, l)
		}
		if l > 0 {
			g.upper[i] = make([]uint32, int(l)*(g.cfg.M+1))
			d.u32s(g.upper[i])
		}
	}
	d.u32s(g.free)
	d.check("body")
	if d.err != nil {
		return nil, d.err
	}
	if err := g.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return g, nil
}

// validate checks the invariants searches rely on, so that a file that
// passed its checksum but was written wrong cannot make them panic.
func (g *Graph) validate() error {
	n := uint32(len(g.state))
	tombs, frees := 0, 0
	for i, st := range g.state {
		switch st {
		case tomb:
			tombs++
		case free:
			frees++
		case live:
		default:
			return fmt.Errorf("node %d: state %d", i, st)
		}
		for l := 0; l <= int(g.level[i]); l++ {
			max := g.maxLinks(l)
			cnt := g.links0[i*(g.m0+1)]
			if l > 0 {
				cnt = g.upper[i][(l-1)*(g.cfg.M+1)]
			}
			if int(cnt) > max {
				return fmt.Errorf("node %d: %d links on layer %d", i, cnt, l)
			}
			for _, x := range g.links(uint32(i), l) {
				if x >= n || int(g.level[x]) < l {
					return fmt.Errorf("node %d: bad link %d on layer %d", i, x, l)
				}
			}
		}
	}
	if tombs != g.nTomb || frees != len(g.free) {
		return fmt.Errorf("counts: %d tombstones, %d free, header says %d, %d", tombs, frees, g.nTomb, len(g.free))
	}
	for _, x := range g.free {
		if x >= n || g.state[x] != free {
			return fmt.Errorf("free list: bad id %d", x)
		}
	}
	if !g.empty && (g.state[g.entry] == free || int(g.level[g.entry]) != g.maxLevel) {
		return fmt.Errorf("bad entry point %d", g.entry)
	}
	return nil
}
