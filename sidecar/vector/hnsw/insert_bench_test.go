package hnsw

import (
	"fmt"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/internal/cputime"
)

// insertSizes are the graph sizes issue 30 asks the insertion cost at.
var insertSizes = []int{4_000, 20_000, 80_000}

// insertRun is one graph grown through insertSizes, shared by the
// sub-benchmarks of BenchmarkGraphInsert in order.
type insertRun struct {
	data, queries [][]float32
	g             *Graph
	cpu, wall     time.Duration // spent on Add so far
}

// grow adds vectors until the graph holds n, returning the CPU and wall
// time that stretch took.
func (r *insertRun) grow(b *testing.B, n int) (cpu, wall time.Duration) {
	cpu0, wall0 := cputime.Process(), time.Now()
	for r.g.Len() < n {
		if _, err := r.g.Add(r.data[r.g.Len()]); err != nil {
			b.Fatal(err)
		}
	}
	cpu, wall = cputime.Process()-cpu0, time.Since(wall0)
	r.cpu, r.wall = r.cpu+cpu, r.wall+wall
	return cpu, wall
}

// BenchmarkGraphInsert measures what adding a passage to the graph costs
// as it grows: one graph of clustered 512-dimension vectors (200 clusters,
// as BenchmarkHNSW100k's) built to 4,000, then 20,000, then 80,000. At
// each it reports the CPU per insertion over the whole build so far and
// over the last stretch alone (what one more passage costs at that size),
// and recall@10 of 200 held-out queries at the default ef against the
// exact scan. Run it with -benchtime=1x, whole (the sizes build on each
// other):
//
//	go test -run '^$' -bench GraphInsert -benchtime=1x -timeout 30m ./sidecar/vector/hnsw/
func BenchmarkGraphInsert(b *testing.B) {
	const queries = 200
	top := insertSizes[len(insertSizes)-1]
	all := clustered(top+queries, benchDim, 200, 0.5, 21)
	r := &insertRun{data: all[:top], queries: all[top:], g: New(benchDim, Config{Seed: 1})}
	for _, n := range insertSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			from := r.g.Len()
			if from >= n {
				b.Skip("built by an earlier run of this size")
			}
			cpu, wall := r.grow(b, n)
			for b.Loop() {
			}
			sum := 0.0
			for _, q := range r.queries {
				got, _ := r.g.Search(q, 10, 0, nil)
				want, _ := r.g.Exact(q, 10, nil)
				sum += recall(got, want)
			}
			us := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }
			b.ReportMetric(us(r.cpu, n), "cpu-µs/insert")
			b.ReportMetric(us(cpu, n-from), "last-cpu-µs/insert")
			b.ReportMetric(us(wall, n-from), "last-µs/insert")
			b.ReportMetric(sum/queries, "recall@10")
		})
	}
}
