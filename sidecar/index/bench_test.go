package index

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/internal/vaultgen"
	"github.com/quire-app/quire/sidecar/state"
)

// benchNotes sizes the generated vault: QUIRE_BENCH_NOTES, default 10,000.
func benchNotes() int {
	if n, err := strconv.Atoi(os.Getenv("QUIRE_BENCH_NOTES")); err == nil && n > 0 {
		return n
	}
	return 10000
}

var (
	benchVaultOnce sync.Once
	benchVaultDir  string
	benchPaths     []string
)

// benchVault generates the deterministic vault once per test binary run.
func benchVault(b *testing.B) string {
	benchVaultOnce.Do(func() {
		dir, err := os.MkdirTemp("", "quire-bench-vault-")
		if err != nil {
			b.Fatal(err)
		}
		if benchPaths, err = vaultgen.Write(dir, vaultgen.Options{Notes: benchNotes(), Seed: 1}); err != nil {
			b.Fatal(err)
		}
		benchVaultDir = dir
	})
	return benchVaultDir
}

func openBench(b *testing.B, vaultDir, stateDir string) (*Index, *state.Dir) {
	st, err := state.Open(stateDir)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := Open(vaultDir, st, config.Default())
	if err != nil {
		b.Fatal(err)
	}
	return ix, st
}

// BenchmarkColdIndex indexes the whole generated vault from nothing.
func BenchmarkColdIndex(b *testing.B) {
	v := benchVault(b)
	for i := 0; i < b.N; i++ {
		stateDir := filepath.Join(b.TempDir(), "state")
		ix, st := openBench(b, v, stateDir)
		s, err := ix.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(s.Notes)/b.Elapsed().Seconds()*float64(i+1), "notes/s")
		b.ReportMetric(float64(s.Chunks), "chunks")
		ix.Close()
		st.Close()
	}
}

// BenchmarkNoopIndex re-runs the index over an unchanged vault.
func BenchmarkNoopIndex(b *testing.B) {
	v := benchVault(b)
	ix, st := openBench(b, v, filepath.Join(b.TempDir(), "state"))
	defer st.Close()
	defer ix.Close()
	if _, err := ix.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := ix.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if s.Changed != 0 {
			b.Fatalf("no-op run re-chunked %d notes", s.Changed)
		}
	}
}

// BenchmarkQuery measures one keyword query against the generated vault's
// index, cycling through generated three-to-five-word queries.
func BenchmarkQuery(b *testing.B) {
	v := benchVault(b)
	ix, st := openBench(b, v, filepath.Join(b.TempDir(), "state"))
	defer st.Close()
	defer ix.Close()
	if _, err := ix.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	qs, err := vaultgen.Queries(v, benchPaths, 200, 1, 2)
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		began := time.Now()
		if _, err := ix.BM25.Search(context.Background(), qs[i%len(qs)].Query, 10); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(began))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99_ms")
}
