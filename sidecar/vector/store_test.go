package vector

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var testFP = Fingerprint{Embedder: "test@1", Dims: 32, Chunking: "window=96"}

// vectors returns n clustered vectors keyed like chunk ids.
func vectors(n int, seed uint64) (keys []string, vecs [][]float32) {
	r := rand.New(rand.NewPCG(seed, 3))
	centres := make([][]float32, 10)
	for i := range centres {
		centres[i] = make([]float32, testFP.Dims)
		for j := range centres[i] {
			centres[i][j] = float32(r.NormFloat64())
		}
	}
	for i := range n {
		c := centres[r.IntN(len(centres))]
		v := make([]float32, testFP.Dims)
		for j := range v {
			v[j] = c[j] + float32(0.5*r.NormFloat64())
		}
		keys = append(keys, fmt.Sprintf("notes/n%d.md#%d", i/5, i%5))
		vecs = append(vecs, v)
	}
	return keys, vecs
}

func fill(t testing.TB, s *Store, keys []string, vecs [][]float32) {
	t.Helper()
	for i, k := range keys {
		if err := s.Put(k, vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
}

func hitKeys(hs []Hit) []string {
	var ks []string
	for _, h := range hs {
		ks = append(ks, h.Key)
	}
	return ks
}

// both returns the same store twice: one answering by exact scan, one by
// the graph.
func both(t *testing.T, keys []string, vecs [][]float32) map[string]*Store {
	exact := New(t.TempDir(), testFP)
	graph := New(t.TempDir(), testFP)
	graph.exactBelow = 0
	fill(t, exact, keys, vecs)
	fill(t, graph, keys, vecs)
	return map[string]*Store{"exact": exact, "graph": graph}
}

func TestSearchMatchesExact(t *testing.T) {
	if raceOn {
		t.Skip("numerical test; slow under -race")
	}
	keys, vecs := vectors(2000, 1)
	stores := both(t, keys, vecs)
	hits := 0
	for i := range 100 {
		want, err := stores["exact"].Search(vecs[i], 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want[0].Key != keys[i] {
			t.Fatalf("exact: nearest to %s is %s", keys[i], want[0].Key)
		}
		got, err := stores["graph"].Search(vecs[i], 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range hitKeys(got) {
			if slices.Contains(hitKeys(want), k) {
				hits++
			}
		}
	}
	if r := float64(hits) / 1000; r < 0.97 {
		t.Errorf("graph recall@10 vs exact: got %.3f, want >= 0.97", r)
	}
}

func TestPutReplaceDeleteFilter(t *testing.T) {
	keys, vecs := vectors(500, 2)
	for name, s := range both(t, keys, vecs) {
		t.Run(name, func(t *testing.T) {
			if got := s.Len(); got != 500 {
				t.Fatalf("Len: got %d, want 500", got)
			}
			// Replace a key's vector: the old one must not answer for it.
			if err := s.Put(keys[0], vecs[1]); err != nil {
				t.Fatal(err)
			}
			if got := s.Len(); got != 500 {
				t.Errorf("Len after replace: got %d, want 500", got)
			}
			hs, _ := s.Search(vecs[1], 2, nil)
			if got := hitKeys(hs); !slices.Contains(got, keys[0]) || !slices.Contains(got, keys[1]) {
				t.Errorf("after replace: got %v, want %s and %s", got, keys[0], keys[1])
			}

			deleted := map[string]bool{}
			for i := 0; i < 500; i += 4 {
				if !s.Delete(keys[i]) {
					t.Fatalf("Delete(%s): got false", keys[i])
				}
				deleted[keys[i]] = true
			}
			if s.Delete(keys[0]) || s.Has(keys[0]) || !s.Has(keys[1]) {
				t.Error("Delete/Has disagree after delete")
			}
			for i := range 100 {
				hs, err := s.Search(vecs[i], 10, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(hs) != 10 {
					t.Fatalf("got %d hits, want 10", len(hs))
				}
				for _, h := range hs {
					if deleted[h.Key] || !s.Has(h.Key) {
						t.Fatalf("deleted key %s returned", h.Key)
					}
				}
			}
			inNote3 := func(k string) bool { return strings.HasPrefix(k, "notes/n3.md#") }
			hs, _ = s.Search(vecs[300], 10, inNote3)
			if got := hitKeys(hs); len(got) != 4 { // n3.md#0..4 less #1, deleted above
				t.Errorf("filtered search: got %v, want the 4 live chunks of n3.md", got)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	s := New(t.TempDir(), testFP)
	if err := s.Put("a", []float32{1, 2}); !errors.Is(err, ErrDims) {
		t.Errorf("Put short vector: got %v, want ErrDims", err)
	}
	if err := s.Put("", make([]float32, testFP.Dims)); err == nil {
		t.Error("Put empty key: got nil error")
	}
	if _, err := s.Search([]float32{1}, 3, nil); !errors.Is(err, ErrDims) {
		t.Errorf("Search short query: got %v, want ErrDims", err)
	}
	if hs, err := s.Search(make([]float32, testFP.Dims), 3, nil); err != nil || len(hs) != 0 {
		t.Errorf("Search empty store: got %v, %v", hs, err)
	}
}

func TestSaveOpenRoundTrip(t *testing.T) {
	keys, vecs := vectors(600, 3)
	dir := filepath.Join(t.TempDir(), "vectors")
	s, err := Open(dir, testFP)
	if err != nil || s.Len() != 0 {
		t.Fatalf("Open missing dir: got %v, %v", s, err)
	}
	s.exactBelow = 0
	fill(t, s, keys, vecs)
	for _, k := range keys[:50] {
		s.Delete(k)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, testFP)
	if err != nil {
		t.Fatal(err)
	}
	r.exactBelow = 0
	if got, want := r.Len(), s.Len(); got != want {
		t.Fatalf("Len: got %d, want %d", got, want)
	}
	gotKeys, wantKeys := r.Keys(), s.Keys()
	slices.Sort(gotKeys)
	slices.Sort(wantKeys)
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatal("Keys differ after reload")
	}
	for _, q := range vecs[:100] {
		a, _ := s.Search(q, 10, nil)
		b, _ := r.Search(q, 10, nil)
		if !slices.Equal(a, b) {
			t.Fatalf("search differs after reload: %v vs %v", a, b)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != FileName {
		t.Errorf("dir after Save: got %v, want only %s", entries, FileName)
	}
}

func TestOpenFingerprintMismatch(t *testing.T) {
	keys, vecs := vectors(50, 4)
	dir := t.TempDir()
	s := New(dir, testFP)
	fill(t, s, keys, vecs)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	tests := []Fingerprint{
		{Embedder: "test@2", Dims: 32, Chunking: "window=96"},
		{Embedder: "test@1", Dims: 64, Chunking: "window=96"},
		{Embedder: "test@1", Dims: 32, Chunking: "window=128"},
	}
	for _, fp := range tests {
		if _, err := Open(dir, fp); !errors.Is(err, ErrFingerprint) {
			t.Errorf("Open with %+v: got %v, want ErrFingerprint", fp, err)
		}
	}
	if s, err := Open(dir, testFP); err != nil || s.Len() != 50 {
		t.Errorf("Open with the same fingerprint: got %v", err)
	}
}

func TestOpenCorrupt(t *testing.T) {
	keys, vecs := vectors(200, 5)
	dir := t.TempDir()
	s := New(dir, testFP)
	fill(t, s, keys, vecs)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir, testFP)
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: got %v, want ErrCorrupt", what, err)
		}
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("%s: error %q does not name %s", what, err, path)
		}
	}
	for _, n := range []int{0, 3, 10, 20, 60, 200, len(good) / 3, len(good) - 1} {
		check(fmt.Sprintf("truncated to %d bytes", n), good[:n])
	}
	step := len(good)/200 + 1
	for i := 0; i < len(good); i += step {
		bad := slices.Clone(good)
		bad[i] ^= 0x01
		check(fmt.Sprintf("bit flipped in byte %d", i), bad)
	}
}

// TestCrashDuringSave leaves a half-written temporary file behind, as a
// crash before the rename would, and checks the previous save still loads.
func TestCrashDuringSave(t *testing.T) {
	keys, vecs := vectors(100, 6)
	dir := t.TempDir()
	s := New(dir, testFP)
	fill(t, s, keys[:50], vecs[:50])
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(filepath.Join(dir, FileName))
	if err := os.WriteFile(filepath.Join(dir, FileName+".tmp-123"), good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, testFP)
	if err != nil || r.Len() != 50 {
		t.Fatalf("Open after crash: got %v", err)
	}
	// A later save still works and replaces the file.
	fill(t, r, keys[50:], vecs[50:])
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	if r, err := Open(dir, testFP); err != nil || r.Len() != 100 {
		t.Fatalf("Open after second save: got %v", err)
	}
}

func TestConcurrentReadersAndWriter(t *testing.T) {
	keys, vecs := vectors(1000, 7)
	s := New(t.TempDir(), testFP)
	s.exactBelow = 300 // cross from exact to graph while readers run
	fill(t, s, keys[:200], vecs[:200])
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if _, err := s.Search(vecs[(i*3+r)%1000], 5, nil); err != nil {
					t.Error(err)
					return
				}
				s.Has(keys[i])
				s.Len()
			}
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 200; i < 1000; i++ {
			s.Put(keys[i], vecs[i])
			if i%3 == 0 {
				s.Put(keys[i-50], vecs[i]) // replace
			}
		}
	}()
	go func() { // a second writer: deletes (and so vacuums) and saves
		defer wg.Done()
		for i := range 400 {
			s.Delete(keys[i])
			if i%100 == 0 {
				if err := s.Save(); err != nil {
					t.Error(err)
				}
			}
		}
	}()
	wg.Wait()
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(s.dir, testFP)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Len(), s.Len(); got != want {
		t.Errorf("Len after reload: got %d, want %d", got, want)
	}
	for _, k := range s.Keys() {
		// Replacements gave some keys the same vector: look a little wider.
		hs, _ := s.Search(s.g.Vector(s.ids[k]), 3, nil)
		if !slices.Contains(hitKeys(hs), k) {
			t.Fatalf("search for %s's own vector: got %v", k, hs)
		}
	}
}
