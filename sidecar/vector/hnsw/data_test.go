package hnsw

import (
	"math/rand/v2"
)

// uniform returns n vectors with coordinates drawn from N(0,1): directions
// uniform on the sphere, the hardest case for any graph index.
func uniform(n, dim int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	vs := make([][]float32, n)
	flat := make([]float32, n*dim)
	for i := range vs {
		v := flat[i*dim : (i+1)*dim : (i+1)*dim]
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		vs[i] = v
	}
	return vs
}

// clustered returns n vectors around k random centres: each is its centre
// plus isotropic Gaussian noise of standard deviation spread per
// coordinate (centres have unit-variance coordinates). Points are assigned
// to clusters at random.
func clustered(n, dim, k int, spread float64, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 2))
	centres := uniform(k, dim, seed+1000)
	vs := make([][]float32, n)
	flat := make([]float32, n*dim)
	for i := range vs {
		c := centres[r.IntN(k)]
		v := flat[i*dim : (i+1)*dim : (i+1)*dim]
		for j := range v {
			v[j] = c[j] + float32(spread*r.NormFloat64())
		}
		vs[i] = v
	}
	return vs
}

// recall is the fraction of the exact top-k ids found in got.
func recall(got, exact []Result) float64 {
	if len(exact) == 0 {
		return 1
	}
	want := make(map[uint32]bool, len(exact))
	for _, e := range exact {
		want[e.ID] = true
	}
	hit := 0
	for _, g := range got {
		if want[g.ID] {
			hit++
		}
	}
	return float64(hit) / float64(len(exact))
}
