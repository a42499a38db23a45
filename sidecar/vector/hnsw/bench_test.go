package hnsw

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// The 100k benchmarks build each graph once per run (the first
// sub-benchmark that needs it) and share it; run them with -benchtime=1x:
//
//	go test -run '^$' -bench HNSW100k -benchtime=1x -timeout 60m ./vector/hnsw/
//
// (saveload repeats with -benchtime=5x; it reports the medians.)
//
// Queries are 1,000 held-out points drawn like the indexed ones; recall@10
// is measured against Exact on the same graph. Setting QUIRE_BENCH_CACHE
// to a directory keeps the built graphs there for the next run.
const (
	benchN       = 100_000
	benchDim     = 512
	benchQueries = 1000
)

type benchSet struct {
	name    string
	gen     func(n int) [][]float32
	once    sync.Once
	data    [][]float32
	queries [][]float32
	g       *Graph
	build   time.Duration
	exact   [][]Result
}

var benchSets = []*benchSet{
	// 200 Gaussian clusters: real embeddings cluster by topic.
	{name: "clustered", gen: func(n int) [][]float32 { return clustered(n, benchDim, 200, 0.5, 11) }},
	// Directions uniform on the sphere: no structure at all.
	{name: "uniform", gen: func(n int) [][]float32 { return uniform(n, benchDim, 12) }},
}

func (s *benchSet) load(b *testing.B) {
	s.once.Do(func() {
		all := s.gen(benchN + benchQueries)
		s.data, s.queries = all[:benchN], all[benchN:]
		if s.g = cached(s.name); s.g == nil {
			start := time.Now()
			s.g = New(benchDim, Config{Seed: 1})
			for _, v := range s.data {
				if _, err := s.g.Add(v); err != nil {
					b.Fatal(err)
				}
			}
			s.build = time.Since(start)
			cache(s.name, s.g)
		}
		s.exact = make([][]Result, len(s.queries))
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(s.queries); i += 2 {
					s.exact[i], _ = s.g.Exact(s.queries[i], 10, nil)
				}
			}()
		}
		wg.Wait()
	})
	if s.g == nil {
		b.Fatal("build failed earlier")
	}
}

func BenchmarkHNSW100k(b *testing.B) {
	for _, s := range benchSets {
		b.Run(s.name+"/build", func(b *testing.B) {
			s.load(b)
			for b.Loop() {
			}
			if s.build == 0 {
				b.Skip("graph loaded from QUIRE_BENCH_CACHE")
			}
			b.ReportMetric(s.build.Seconds(), "build_s")
			b.ReportMetric(float64(benchN)/s.build.Seconds(), "inserts/s")
		})
		for _, ef := range []int{64, 128, 256} {
			b.Run(fmt.Sprintf("%s/search/ef=%d", s.name, ef), func(b *testing.B) {
				s.load(b)
				benchSearch(b, s, ef)
			})
		}
		b.Run(s.name+"/exact", func(b *testing.B) {
			s.load(b)
			lat := make([]time.Duration, 0, 100)
			for b.Loop() {
				lat = lat[:0]
				for _, q := range s.queries[:100] {
					start := time.Now()
					s.g.Exact(q, 10, nil)
					lat = append(lat, time.Since(start))
				}
			}
			b.ReportMetric(percentile(lat, 50), "p50_ms")
		})
		b.Run(s.name+"/saveload", func(b *testing.B) {
			s.load(b)
			path := filepath.Join(b.TempDir(), "graph.bin")
			var saves, loads []time.Duration
			for b.Loop() {
				start := time.Now()
				f, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.g.WriteTo(f); err != nil {
					b.Fatal(err)
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
				f.Close()
				saves = append(saves, time.Since(start))

				start = time.Now()
				f, err = os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Read(f); err != nil {
					b.Fatal(err)
				}
				f.Close()
				loads = append(loads, time.Since(start))
			}
			st, _ := os.Stat(path)
			b.ReportMetric(percentile(saves, 50)/1000, "save_s")
			b.ReportMetric(percentile(loads, 50)/1000, "load_s")
			b.ReportMetric(percentile(loads, 100)/1000, "load_max_s")
			b.ReportMetric(float64(st.Size())/1e6, "file_MB")
		})
		// Last, because it changes the shared graph: delete 10% of the
		// nodes, vacuum, and check recall against the exact scan again.
		b.Run(s.name+"/vacuum10pct", func(b *testing.B) {
			s.load(b)
			var took time.Duration
			for b.Loop() {
				for id := uint32(0); id < benchN; id += 10 {
					s.g.Delete(id)
				}
				if s.g.Tombstones() == 0 { // a later iteration: nothing to do
					continue
				}
				start := time.Now()
				s.g.Vacuum()
				took = time.Since(start)
			}
			qs := s.queries[:200]
			sum := 0.0
			for _, q := range qs {
				got, _ := s.g.Search(q, 10, 0, nil)
				want, _ := s.g.Exact(q, 10, nil)
				sum += recall(got, want)
			}
			b.ReportMetric(took.Seconds(), "vacuum_s")
			b.ReportMetric(sum/float64(len(qs)), "recall@10")
		})
	}
}

// cached loads a graph saved by cache from $QUIRE_BENCH_CACHE, so that
// reruns skip the build; the data is the same on every run (fixed seeds).
// Delete the directory after changing how graphs are built.
func cached(name string) *Graph {
	dir := os.Getenv("QUIRE_BENCH_CACHE")
	if dir == "" {
		return nil
	}
	f, err := os.Open(filepath.Join(dir, name+".hnsw"))
	if err != nil {
		return nil
	}
	defer f.Close()
	g, err := Read(f)
	if err != nil {
		return nil
	}
	return g
}

func cache(name string, g *Graph) {
	dir := os.Getenv("QUIRE_BENCH_CACHE")
	if dir == "" {
		return
	}
	os.MkdirAll(dir, 0o755)
	f, err := os.Create(filepath.Join(dir, name+".hnsw"))
	if err != nil {
		return
	}
	defer f.Close()
	g.WriteTo(f)
}

func benchSearch(b *testing.B, s *benchSet, ef int) {
	lat := make([]time.Duration, 0, len(s.queries))
	var sum float64
	for b.Loop() {
		lat, sum = lat[:0], 0
		for i, q := range s.queries {
			start := time.Now()
			got, err := s.g.Search(q, 10, ef, nil)
			lat = append(lat, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			sum += recall(got, s.exact[i])
		}
	}
	b.ReportMetric(sum/float64(len(s.queries)), "recall@10")
	b.ReportMetric(percentile(lat, 50), "p50_ms")
	b.ReportMetric(percentile(lat, 99), "p99_ms")
}

func percentile(lat []time.Duration, p int) float64 {
	s := slices.Clone(lat)
	slices.Sort(s)
	return float64(s[(len(s)-1)*p/100]) / float64(time.Millisecond) // p=50 of an even count: the lower middle
}
