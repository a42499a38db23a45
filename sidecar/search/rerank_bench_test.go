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

// BenchmarkRerank times the rerank stage alone (features and the model)
// on pools of 50 passages, for 200 generated queries over a 1,000-note
// generated vault, and reports its p50 and p99 per query:
//
//	go test -run XXX -bench Rerank ./sidecar/search/
func BenchmarkRerank(b *testing.B) {
	dir := b.TempDir()
	vault := filepath.Join(dir, "vault")
	paths, err := vaultgen.Write(vault, vaultgen.Options{Notes: 1000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	qs, err := vaultgen.Queries(vault, paths, 200, 1, 2)
	if err != nil {
		b.Fatal(err)
	}
	st, err := state.Open(filepath.Join(dir, "state"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	cfg := config.Default()
	cfg.Dense.Embedder = "none"
	ix, err := index.Open(vault, st, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	if _, err := ix.Run(ctx); err != nil {
		b.Fatal(err)
	}
	ix.BM25.SetFieldWeights(FieldWeights(cfg.Search))
	s := New(ix.BM25, []string{"en"}, cfg.Search)
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
