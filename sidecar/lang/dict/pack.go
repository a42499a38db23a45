package dict

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// A packed table is what the binary embeds: the table's text cut into
// blocks of whole lines, each compressed on its own, so a lookup inflates
// only the block its key falls in (16 KiB, about 0.25 ms) and a one-shot
// search decodes a few blocks, not whole tables (the plain text was 19.7
// MB of the binary, packed 6.8 MB). The layout:
//
//	packMagic
//	uvarint len(head), head    the "#" header lines, as they are
//	uvarint len(dict), dict    DEFLATE's preset dictionary (sampleDict)
//	uvarint n                  the number of blocks
//	n × (uvarint raw length, uvarint packed length, uvarint len(first), first key)
//	the n packed blocks, one after the other
//
// Within a block each line's key is front-coded against the previous
// line's (one byte, '0' plus the length of the shared prefix, at most
// maxShared; then the rest of the line) before raw DEFLATE: sorted keys
// share long prefixes, and this saves 4% more than DEFLATE alone. The
// first line of a block shares nothing, so a block decodes alone.
const (
	packMagic = "quire-dict-pack-1\n"
	blockSize = 16 << 10
	maxShared = 200
	dictSize  = 32 << 10 // DEFLATE's window
	dictPiece = 1 << 10
)

// block is one packed block of a table; text is inflated on first use.
type block struct {
	off   int    // offset of the block's first byte in the table's text
	n     int    // its length
	first string // its first key
	comp  string // packed bytes; "" when text was given
	load  func() // inflates comp into text, once
	text  string
}

// Pack returns the packed form of a table's text (header lines, then
// sorted "key\t…" lines, each ending in a newline). scripts/gen-dict
// writes it beside the .tsv, and TestPacked checks the two agree.
func Pack(text string) ([]byte, error) {
	if text != "" && !strings.HasSuffix(text, "\n") {
		return nil, errors.New("pack: text does not end in a newline")
	}
	body := headLen(text)
	var raws, fcs []string
	for rest := text[body:]; rest != ""; {
		end := min(blockSize, len(rest))
		if i := strings.IndexByte(rest[end-1:], '\n'); i >= 0 {
			end += i
		}
		raw := rest[:end]
		rest = rest[end:]
		var fc strings.Builder
		prev := ""
		for line := range strings.Lines(raw) {
			key := keyOf(strings.TrimSuffix(line, "\n"))
			k := 0
			for k < maxShared && k < len(key) && k < len(prev) && key[k] == prev[k] {
				k++
			}
			fc.WriteByte(byte('0' + k))
			fc.WriteString(line[k:])
			prev = key
		}
		raws = append(raws, raw)
		fcs = append(fcs, fc.String())
	}
	dict := sampleDict(strings.Join(fcs, ""))
	var index, blocks bytes.Buffer
	for i, raw := range raws {
		var packed bytes.Buffer
		zw, err := flate.NewWriterDict(&packed, flate.BestCompression, dict)
		if err != nil {
			return nil, fmt.Errorf("pack: %w", err)
		}
		zw.Write([]byte(fcs[i]))
		if err := zw.Close(); err != nil {
			return nil, fmt.Errorf("pack: %w", err)
		}
		first := keyOf(raw[:strings.IndexByte(raw, '\n')])
		index.Write(binary.AppendUvarint(nil, uint64(len(raw))))
		index.Write(binary.AppendUvarint(nil, uint64(packed.Len())))
		index.Write(binary.AppendUvarint(nil, uint64(len(first))))
		index.WriteString(first)
		blocks.Write(packed.Bytes())
	}
	var out bytes.Buffer
	out.WriteString(packMagic)
	out.Write(binary.AppendUvarint(nil, uint64(body)))
	out.WriteString(text[:body])
	out.Write(binary.AppendUvarint(nil, uint64(len(dict))))
	out.Write(dict)
	out.Write(binary.AppendUvarint(nil, uint64(len(raws))))
	out.Write(index.Bytes())
	out.Write(blocks.Bytes())
	return out.Bytes(), nil
}

// sampleDict returns DEFLATE's preset dictionary for a table's blocks:
// pieces of the front-coded text taken evenly across it, so that a small
// block compresses nearly as well as a large one (16 KiB blocks with it:
// 6.80 MB for all tables; without it 7.05 MB, 64 KiB blocks 6.77 MB). A
// table too small to gain from one has none.
func sampleDict(fc string) []byte {
	if len(fc) < 4*dictSize {
		return nil
	}
	n := dictSize / dictPiece
	step := len(fc) / n
	out := make([]byte, 0, dictSize)
	for i := range n {
		out = append(out, fc[i*step:i*step+dictPiece]...)
	}
	return out
}

// headLen is the length of text's leading "#" lines.
func headLen(text string) int {
	body := 0
	for body < len(text) && text[body] == '#' {
		nl := strings.IndexByte(text[body:], '\n')
		if nl < 0 {
			return len(text)
		}
		body += nl + 1
	}
	return body
}

func keyOf(line string) string {
	if i := strings.IndexByte(line, '\t'); i >= 0 {
		return line[:i]
	}
	return line
}

// openPacked reads a packed table's header and index; the blocks stay
// packed until used. A packed table that does not parse is a build
// error (TestPacked reads every one), so it panics.
func openPacked(name, data string) *Table {
	r := strings.NewReader(data)
	fail := func(err error) {
		panic(fmt.Sprintf("dict: embedded table %s: %v", name, err))
	}
	if !strings.HasPrefix(data, packMagic) {
		fail(errors.New("not a packed table"))
	}
	r.Seek(int64(len(packMagic)), io.SeekStart)
	num := func() int {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			fail(err)
		}
		if v > uint64(len(data))*1000 {
			fail(errors.New("bad length"))
		}
		return int(v)
	}
	str := func(n int) string {
		at := len(data) - r.Len()
		if n > r.Len() {
			fail(io.ErrUnexpectedEOF)
		}
		r.Seek(int64(n), io.SeekCurrent)
		return data[at : at+n]
	}
	head := str(num())
	dict := []byte(str(num()))
	t := &Table{head: head, body: len(head)}
	nb := num()
	t.blocks = make([]*block, nb)
	off := len(head)
	comp := make([]int, nb)
	for i := range t.blocks {
		b := &block{off: off}
		b.n = num()
		comp[i] = num()
		b.first = str(num())
		off += b.n
		t.blocks[i] = b
	}
	t.size = off
	for i, b := range t.blocks {
		b.comp = str(comp[i])
		b.load = sync.OnceFunc(func() { b.text = unpack(name, b, dict) })
	}
	return t
}

// inflaters keeps DEFLATE readers for reuse: a new one allocates more
// than a block.
var inflaters sync.Pool

// unpack inflates a block and undoes the front coding.
func unpack(name string, b *block, dict []byte) string {
	var fc bytes.Buffer
	fc.Grow(b.n)
	zr, _ := inflaters.Get().(io.ReadCloser)
	if zr == nil {
		zr = flate.NewReaderDict(strings.NewReader(b.comp), dict)
	} else {
		zr.(flate.Resetter).Reset(strings.NewReader(b.comp), dict)
	}
	defer inflaters.Put(zr)
	if _, err := fc.ReadFrom(zr); err != nil {
		panic(fmt.Sprintf("dict: embedded table %s: block at %d: %v", name, b.off, err))
	}
	in := fc.Bytes()
	out := make([]byte, 0, b.n)
	prev, prevLen := 0, 0 // the previous line's key: out[prev:prev+prevLen]
	for len(in) > 0 {
		k := int(in[0] - '0')
		if k < 0 || k > prevLen {
			panic(fmt.Sprintf("dict: embedded table %s: block at %d: bad shared prefix", name, b.off))
		}
		line := in[1:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		in = in[1+len(line):]
		start := len(out)
		out = append(out, out[prev:prev+k]...)
		out = append(out, line...)
		seg := bytes.TrimSuffix(out[start:], []byte{'\n'})
		if i := bytes.IndexByte(seg, '\t'); i >= 0 {
			seg = seg[:i]
		}
		prev, prevLen = start, len(seg)
	}
	if len(out) != b.n {
		panic(fmt.Sprintf("dict: embedded table %s: block at %d: %d bytes, want %d", name, b.off, len(out), b.n))
	}
	return string(out)
}
