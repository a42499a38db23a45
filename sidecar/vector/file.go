package vector

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/quire-app/quire/sidecar/vector/hnsw"
)

// The file, integers little-endian:
//
//	magic "QUIREVEC", version uint32
//	fingerprint: length uint32, JSON
//	CRC-32C of the above
//	keys: count uint32 (= graph ids), then per id length uint32 and bytes
//	      ("" for ids not in use)
//	CRC-32C of the keys
//	the graph, vectors included, in hnsw's own checksummed form
//
// The fingerprint comes first and has its own checksum so that Open can
// refuse a stale file without reading the vectors.
const (
	fileMagic   = "QUIREVEC"
	fileVersion = 1
	maxKeyLen   = 1 << 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (s *Store) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fp, err := json.Marshal(s.fp)
	if err != nil {
		return err
	}
	crc := crc32.New(castagnoli)
	out := io.MultiWriter(bw, crc)
	var b []byte
	b = append(b, fileMagic...)
	b = binary.LittleEndian.AppendUint32(b, fileVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(fp)))
	b = append(b, fp...)
	out.Write(b)
	bw.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	crc.Reset()

	b = binary.LittleEndian.AppendUint32(b[:0], uint32(len(s.keys)))
	out.Write(b)
	for _, k := range s.keys {
		b = binary.LittleEndian.AppendUint32(b[:0], uint32(len(k)))
		b = append(b, k...)
		out.Write(b)
	}
	if _, err := bw.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32())); err != nil {
		return err
	}
	// bufio keeps the first write error and returns it from here on.
	if _, err := s.g.WriteTo(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// reader reads exact byte counts, feeding a checksum and turning a short
// read into ErrCorrupt.
type reader struct {
	r   *bufio.Reader
	sum uint32
	err error
}

func (r *reader) read(n int) []byte {
	if r.err != nil {
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		r.err = err
		return nil
	}
	r.sum = crc32.Update(r.sum, castagnoli, b)
	return b
}

func (r *reader) u32() uint32 {
	if b := r.read(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) check(what string) {
	want := r.sum
	got := r.u32()
	r.sum = 0
	if r.err == nil && got != want {
		r.err = fmt.Errorf("%w: %s checksum mismatch", ErrCorrupt, what)
	}
}

// read fills an empty store from a file, checking the fingerprint first.
func (s *Store) read(src io.Reader) error {
	r := &reader{r: bufio.NewReaderSize(src, 1<<20)}
	if m := r.read(len(fileMagic)); r.err == nil && string(m) != fileMagic {
		return fmt.Errorf("%w: not a vector file", ErrCorrupt)
	}
	if v := r.u32(); r.err == nil && v != fileVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrCorrupt, v, fileVersion)
	}
	n := r.u32()
	if r.err == nil && n > maxKeyLen {
		return fmt.Errorf("%w: bad header", ErrCorrupt)
	}
	fpJSON := r.read(int(n))
	r.check("header")
	if r.err != nil {
		return r.err
	}
	var fp Fingerprint
	if err := json.Unmarshal(fpJSON, &fp); err != nil {
		return fmt.Errorf("%w: fingerprint: %v", ErrCorrupt, err)
	}
	if fp != s.fp {
		return fmt.Errorf("%w: stored %+v, want %+v", ErrFingerprint, fp, s.fp)
	}

	count := r.u32()
	// Keys are at least 4 bytes each on disk; refuse counts no file of
	// ours could hold before allocating for them.
	if r.err == nil && count > 1<<30 {
		return fmt.Errorf("%w: %d keys", ErrCorrupt, count)
	}
	keys := make([]string, 0, min(count, 1<<20))
	for range count {
		l := r.u32()
		if r.err == nil && l > maxKeyLen {
			return fmt.Errorf("%w: key of %d bytes", ErrCorrupt, l)
		}
		keys = append(keys, string(r.read(int(l))))
		if r.err != nil {
			break
		}
	}
	r.check("keys")
	if r.err != nil {
		return r.err
	}

	g, err := hnsw.Read(r.r)
	if err != nil {
		if errors.Is(err, hnsw.ErrCorrupt) {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return err
	}
	if g.Dim() != s.fp.Dims {
		return fmt.Errorf("%w: graph has %d dimensions, fingerprint %d", ErrCorrupt, g.Dim(), s.fp.Dims)
	}
	ids := make(map[string]uint32, g.Len())
	for id, k := range keys {
		if k == "" {
			continue
		}
		if _, dup := ids[k]; dup || !g.Live(uint32(id)) {
			return fmt.Errorf("%w: key %q does not match the graph", ErrCorrupt, k)
		}
		ids[k] = uint32(id)
	}
	if len(ids) != g.Len() {
		return fmt.Errorf("%w: %d keys for %d vectors", ErrCorrupt, len(ids), g.Len())
	}
	s.g, s.keys, s.ids = g, keys, ids
	return nil
}
