// Package vector owns Quire's dense index: one float32 vector per chunk,
// searched by cosine similarity, persisted in <state>/vectors/ together
// with the fingerprint of the embedder and chunking that produced them.
//
// Small collections are searched by an exact scan; from 10,000 vectors
// on, the HNSW graph of package hnsw answers instead. The graph is kept up
// to date on every Put either way and saved in the same file as the
// vectors, so switching needs no build and loading rebuilds nothing.
//
// The indexer's use, in short:
//
//	s, err := vector.Open(dir, fp)
//	if errors.Is(err, vector.ErrFingerprint) || errors.Is(err, vector.ErrCorrupt) {
//		s = vector.New(dir, fp) // log it; vectors are embedded again
//	}
//	// for each chunk without a vector (!s.Has(id)): embed, s.Put(id, vec)
//	// for each key in s.Keys() whose chunk is gone: s.Delete(key)
//	// now and then, and at shutdown: s.Save()
//	hits, err := s.Search(q, k, nil)
package vector

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/quire-app/quire/sidecar/vector/hnsw"
)

// Fingerprint identifies what produced a set of vectors. Vectors with a
// different fingerprint are not comparable with new ones: the caller
// discards them and embeds again.
type Fingerprint struct {
	// Embedder names the model and its version, e.g. "use-lite@0.2.0".
	Embedder string `json:"embedder"`
	// Dims is the vector length.
	Dims int `json:"dims"`
	// Chunking describes the chunking parameters, e.g. "window=96,stride=64".
	Chunking string `json:"chunking"`
}

// Hit is one search result.
type Hit struct {
	Key   string  // chunk id, e.g. "notes/a.md#3"
	Score float32 // cosine similarity in [-1, 1], higher is closer
}

// FileName is the name of the store's file inside its directory.
const FileName = "vectors.bin"

// exactBelow is the live vector count under which Search scans exactly.
// The scan reads every vector (20 MB at 10k × 512 dimensions) and is
// memory-bound: on the shared 2-core machine it took about as long as a
// graph search at 5k vectors and 1.5 to 2.5 times as long at 10k to 20k
// (BenchmarkStoreSearch; noisy).
const exactBelow = 10_000

var (
	// ErrFingerprint is returned by Open when the stored vectors were made
	// by another embedder or chunking; the caller starts afresh with New.
	ErrFingerprint = errors.New("vector: fingerprint changed")
	// ErrCorrupt is returned by Open for a truncated or damaged file; the
	// caller starts afresh with New.
	ErrCorrupt = errors.New("vector: corrupt file")
	// ErrDims is returned for a vector whose length is not Fingerprint.Dims.
	ErrDims = hnsw.ErrDims
)

// Store maps chunk keys to vectors. It is safe for concurrent use: writers
// take turns, searches run beside each other and beside writers, waiting
// only for the brief moments a writer changes the data.
type Store struct {
	dir string
	fp  Fingerprint

	g          *hnsw.Graph
	exactBelow int

	// wmu serialises Put, Delete and Save. Writers call the graph holding
	// only wmu, so that a graph vacuum or a save, which take seconds at
	// 100k vectors, never leaves a writer queued on mu ahead of searches.
	wmu  sync.Mutex
	mu   sync.RWMutex // guards keys and ids
	keys []string     // by graph id; "" for ids not (or not yet) in use
	ids  map[string]uint32

	gen      atomic.Uint64 // bumped by every change
	savedGen atomic.Uint64 // gen at the last successful Save or Open
}

// graphConfig is fixed so that a store's graph is reproducible.
var graphConfig = hnsw.Config{Seed: 1}

// New returns an empty store that will save to dir. It does not touch the
// disk until Save.
func New(dir string, fp Fingerprint) *Store {
	return &Store{
		dir:        dir,
		fp:         fp,
		g:          hnsw.New(fp.Dims, graphConfig),
		ids:        make(map[string]uint32),
		exactBelow: exactBelow,
	}
}

// Open loads the store saved in dir. A missing file gives an empty store.
// A file saved under another fingerprint gives ErrFingerprint, and a
// damaged one ErrCorrupt (errors naming the file); in both cases the caller
// should log it and continue with New(dir, fp), whose first Save replaces
// the file.
func Open(dir string, fp Fingerprint) (*Store, error) {
	path := filepath.Join(dir, FileName)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return New(dir, fp), nil
	}
	if err != nil {
		return nil, fmt.Errorf("open vectors: %w", err)
	}
	defer f.Close()
	s := New(dir, fp)
	if err := s.read(f); err != nil {
		return nil, fmt.Errorf("open vectors %s: %w", path, err)
	}
	return s, nil
}

// Fingerprint returns the fingerprint the store was opened with.
func (s *Store) Fingerprint() Fingerprint { return s.fp }

// Put stores vec under key, replacing any vector the key had. The vector
// is copied and L2-normalised.
func (s *Store) Put(key string, vec []float32) error {
	if key == "" {
		return errors.New("put vector: empty key")
	}
	if len(vec) != s.fp.Dims {
		return fmt.Errorf("put vector %s: %w: got %d, want %d", key, ErrDims, len(vec), s.fp.Dims)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	// Until keys[id] is set below, searches skip the new node.
	id, err := s.g.Add(vec)
	if err != nil {
		return fmt.Errorf("put vector %s: %w", key, err)
	}
	s.mu.Lock()
	old, had := s.ids[key]
	if had {
		s.keys[old] = ""
	}
	if int(id) >= len(s.keys) {
		s.keys = append(s.keys, make([]string, int(id)+1-len(s.keys))...)
	}
	s.keys[id] = key
	s.ids[key] = id
	s.mu.Unlock()
	if had {
		s.g.Delete(old) // may vacuum the graph; searches go on
	}
	s.gen.Add(1)
	return nil
}

// Delete removes key's vector and reports whether there was one.
func (s *Store) Delete(key string) bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	id, ok := s.ids[key]
	if ok {
		s.keys[id] = ""
		delete(s.ids, key)
	}
	s.mu.Unlock()
	if ok {
		s.g.Delete(id) // may vacuum the graph; searches go on
		s.gen.Add(1)
	}
	return ok
}

// Rename moves from's vector to the key to, replacing any vector to had,
// and reports whether from had one: a note that moved keeps its vectors
// without being embedded again.
func (s *Store) Rename(from, to string) bool {
	if from == to || to == "" {
		return false
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	id, ok := s.ids[from]
	old, had := s.ids[to]
	if ok {
		delete(s.ids, from)
		if had {
			s.keys[old] = ""
		}
		s.keys[id] = to
		s.ids[to] = id
	}
	s.mu.Unlock()
	if ok && had {
		s.g.Delete(old)
	}
	if ok {
		s.gen.Add(1)
	}
	return ok
}

// Has reports whether key has a vector.
func (s *Store) Has(key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.ids[key]
	return ok
}

// Len returns the number of vectors.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.ids)
}

// Keys returns every key with a vector, in no particular order; the
// indexer uses it to drop vectors of chunks that no longer exist.
func (s *Store) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.ids))
	for k := range s.ids {
		keys = append(keys, k)
	}
	return keys
}

// Search returns up to k keys whose vectors are most similar to query, best
// first, skipping keys for which filter (if not nil) returns false. Below
// 10,000 vectors it is exact; above, approximate (recall@10 0.999 on the
// clustered 100k benchmark of package hnsw). A filter that passes very few keys makes a large search
// slower, not less accurate.
func (s *Store) Search(query []float32, k int, filter func(key string) bool) ([]Hit, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// A node without a key is being put or deleted right now.
	accept := func(id uint32) bool {
		if int(id) >= len(s.keys) || s.keys[id] == "" {
			return false
		}
		return filter == nil || filter(s.keys[id])
	}
	var res []hnsw.Result
	var err error
	if len(s.ids) < s.exactBelow {
		res, err = s.g.Exact(query, k, accept)
	} else {
		res, err = s.g.Search(query, k, 0, accept)
	}
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	hits := make([]Hit, len(res))
	for i, r := range res {
		hits[i] = Hit{Key: s.keys[r.ID], Score: r.Score}
	}
	return hits, nil
}

// Save writes the store to <dir>/vectors.bin atomically: a temporary file
// is written, synced and renamed over the old one, so a crash at any point
// leaves either the old or the new file. Saving an unchanged store does
// nothing. Searches go on while it writes (about a second at 100k vectors
// of 512 dimensions); Put and Delete wait.
func (s *Store) Save() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	gen := s.gen.Load()
	if gen == s.savedGen.Load() && fileExists(filepath.Join(s.dir, FileName)) {
		return nil
	}
	if err := s.save(); err != nil {
		return fmt.Errorf("save vectors %s: %w", filepath.Join(s.dir, FileName), err)
	}
	s.savedGen.Store(gen)
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (s *Store) save() error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, FileName+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename this fails harmlessly
	s.mu.RLock()
	err = s.write(tmp)
	s.mu.RUnlock()
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, FileName)); err != nil {
		return err
	}
	// Make the rename itself durable.
	d, err := os.Open(s.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
