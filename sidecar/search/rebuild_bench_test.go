package search_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/eval"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/state"
	"github.com/quire-app/quire/sidecar/vector/use"
)

// foreground hides the builtin model's EmbedBackground, so the index embeds
// with every core at normal priority: how indexing ran before dense.workers.
type foreground struct{ *use.Model }

// BenchmarkSearchDuringRebuild measures hybrid search latency on a real
// vault while the index embeds every passage from scratch, as the sidecar
// does after a change of embedder, against the same searches with nothing
// else running. The gold file's questions are the queries, each searched
// once per pass. QUIRE_BENCH_VAULT and QUIRE_BENCH_GOLD name the vault and
// gold file; without them the benchmark is skipped:
//
//	QUIRE_BENCH_VAULT=../shared/bench/ariostea-wiki/corpus \
//	QUIRE_BENCH_GOLD=../shared/bench/ariostea-wiki/dev/gold.dev.json \
//	go test -run XXX -bench SearchDuringRebuild -benchtime 1x ./sidecar/search
func BenchmarkSearchDuringRebuild(b *testing.B) {
	vault, gold := os.Getenv("QUIRE_BENCH_VAULT"), os.Getenv("QUIRE_BENCH_GOLD")
	if vault == "" || gold == "" {
		b.Skip("QUIRE_BENCH_VAULT and QUIRE_BENCH_GOLD not set")
	}
	qs, err := eval.Load(gold)
	if err != nil {
		b.Fatal(err)
	}
	m, err := use.Load()
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		emb  index.Embedder
	}{{"background", m}, {"foreground", foreground{m}}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			st, err := state.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			ix, err := index.Open(vault, st, config.Default())
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			if _, err := ix.Run(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := ix.EnableDense(st, mode.emb); err != nil {
				b.Fatal(err)
			}
			langs, err := ix.Languages()
			if err != nil {
				b.Fatal(err)
			}
			s := &search.Searcher{BM25: ix.BM25, Dense: ix, Fusion: search.DefaultFusion, Langs: langs}
			pass := func(lat []time.Duration) []time.Duration {
				for _, q := range qs {
					t0 := time.Now()
					if _, err := s.Query(ctx, q.Query, 10, search.Hybrid); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				return lat
			}
			b.ResetTimer()
			var idle, busy []time.Duration
			for range b.N {
				idle = pass(idle)
			}
			embedCtx, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			var embedErr error
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, embedErr = ix.Embed(embedCtx)
			}()
			time.Sleep(time.Second) // let the workers start
			for range 3 * b.N {
				busy = pass(busy)
			}
			vectors := ix.Vectors()
			stop()
			wg.Wait()
			b.StopTimer()
			if embedErr != nil && !errors.Is(embedErr, context.Canceled) {
				b.Fatal(embedErr)
			}
			if ix.DenseStats().Coverage() == 1 {
				b.Logf("the rebuild ended before the searches: measure on a larger vault")
			}
			b.ReportMetric(ms(quantile(idle, 0.5)), "idle-p50-ms")
			b.ReportMetric(ms(quantile(idle, 0.99)), "idle-p99-ms")
			b.ReportMetric(ms(quantile(busy, 0.5)), "rebuild-p50-ms")
			b.ReportMetric(ms(quantile(busy, 0.99)), "rebuild-p99-ms")
			b.ReportMetric(float64(len(busy)), "searches")
			b.ReportMetric(float64(vectors), "vectors-made")
		})
	}
}

func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
