package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
