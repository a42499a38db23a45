package vector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/vector/hnsw"
)

// BenchmarkStoreSearch compares the exact scan with the graph at the sizes
// around exactBelow, with 512-dimensional vectors:
//
//	go test -run '^$' -bench StoreSearch ./vector/
func BenchmarkStoreSearch(b *testing.B) {
	const dim = 512
	fp := Fingerprint{Embedder: "bench", Dims: dim}
	r := rand.New(rand.NewPCG(1, 1))
	vec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	s := New(b.TempDir(), fp)
	for _, n := range []int{5_000, 10_000, 20_000} {
		for s.Len() < n {
			if err := s.Put(fmt.Sprintf("n%d.md#0", s.Len()), vec()); err != nil {
				b.Fatal(err)
			}
		}
		q := vec()
		for _, mode := range []string{"exact", "graph"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, mode), func(b *testing.B) {
				s.exactBelow = n + 1
				if mode == "graph" {
					s.exactBelow = 0
				}
				for b.Loop() {
					if _, err := s.Search(q, 10, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkStoreSaveOpen100k saves and opens a store of 100,000 vectors of
// 512 dimensions. Building that graph takes minutes, so it reuses the one
// the hnsw benchmark leaves in $QUIRE_BENCH_CACHE:
//
//	QUIRE_BENCH_CACHE=/tmp/quire-bench go test -run '^$' -bench HNSW100k/clustered/build -benchtime=1x -timeout 60m ./vector/hnsw/
//	QUIRE_BENCH_CACHE=/tmp/quire-bench go test -run '^$' -bench StoreSaveOpen100k -benchtime=5x ./vector/
//
// Times are medians over the iterations: on a shared machine single runs
// vary by a factor of two.
func BenchmarkStoreSaveOpen100k(b *testing.B) {
	dir := os.Getenv("QUIRE_BENCH_CACHE")
	f, err := os.Open(filepath.Join(dir, "clustered.hnsw"))
	if dir == "" || err != nil {
		b.Skip("no cached graph: run the hnsw HNSW100k benchmark with QUIRE_BENCH_CACHE first")
	}
	g, err := hnsw.Read(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	fp := Fingerprint{Embedder: "bench", Dims: g.Dim(), Chunking: "bench"}
	s := New(b.TempDir(), fp)
	s.g = g
	for id := range uint32(g.Len()) {
		k := fmt.Sprintf("notes/folder/note-%d.md#%d", id/8, id%8)
		s.keys = append(s.keys, k)
		s.ids[k] = id
	}
	s.gen.Add(1)
	var saves, opens []time.Duration
	var heap uint64
	for b.Loop() {
		start := time.Now()
		if err := s.Save(); err != nil {
			b.Fatal(err)
		}
		saves = append(saves, time.Since(start))
		s.gen.Add(1) // make the next iteration write again

		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start = time.Now()
		r, err := Open(s.dir, fp)
		if err != nil {
			b.Fatal(err)
		}
		opens = append(opens, time.Since(start))
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = after.HeapAlloc - before.HeapAlloc
		if r.Len() != s.Len() {
			b.Fatalf("Len after Open: got %d, want %d", r.Len(), s.Len())
		}
	}
	st, _ := os.Stat(filepath.Join(s.dir, FileName))
	b.ReportMetric(median(saves).Seconds(), "save_s")
	b.ReportMetric(median(opens).Seconds(), "open_s")
	b.ReportMetric(float64(st.Size())/1e6, "file_MB")
	b.ReportMetric(float64(heap)/1e6, "heap_MB")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
