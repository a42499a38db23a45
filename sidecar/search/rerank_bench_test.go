package search

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/internal/vaultgen"
	"github.com/quire-app/quire/sidecar/state"
)

// generatedSearcher indexes a generated vault of notes (keywords only)
// and returns a searcher over it with queries made from its notes.
func generatedSearcher(tb testing.TB, notes, queries int) (*Searcher, []vaultgen.Query) {
	dir := tb.TempDir()
	vault := filepath.Join(dir, "vault")
	paths, err := vaultgen.Write(vault, vaultgen.Options{Notes: notes, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	qs, err := vaultgen.Queries(vault, paths, queries, 1, 2)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := state.Open(filepath.Join(dir, "state"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	cfg := config.Default()
	cfg.Dense.Embedder = "none"
	ix, err := index.Open(vault, st, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	if _, err := ix.Run(context.Background()); err != nil {
		tb.Fatal(err)
	}
	ix.BM25.SetFieldWeights(FieldWeights(cfg.Search))
	return New(ix.BM25, []string{"en"}, cfg.Search), qs
}

// BenchmarkRerank times the rerank stage alone (features and the model)
// on pools of 50 passages, for 200 generated queries over a 1,000-note
// generated vault, and reports its p50 and p99 per query:
//
//	go test -run XXX -bench Rerank ./sidecar/search/
func BenchmarkRerank(b *testing.B) {
	s, qs := generatedSearcher(b, 1000, 200)
	ctx := context.Background()
	type pool struct {
		t  Terms
		cs []Candidate
	}
	var pools []pool
	for _, q := range qs {
		t := s.Terms(q.Query)
		cs, err := s.candidates(ctx, t, 50, BM25, Filter{})
		if err != nil {
			b.Fatal(err)
		}
		pools = append(pools, pool{t, cs})
	}
	var took []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pools[i%len(pools)]
		cs := slices.Clone(p.cs)
		start := time.Now()
		s.rescore(ctx, p.t, cs, &hybridModel)
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}
