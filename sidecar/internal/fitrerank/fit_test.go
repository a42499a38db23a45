package main

import (
	"testing"

	"github.com/quire-app/quire/sidecar/search"
)

// coverage is a feature index the synthetic pools below make decisive.
var coverage = func() int {
	for i, n := range search.FeatureNames() {
		if n == "coverage" {
			return i
		}
	}
	panic("no coverage feature")
}()

// pools where the fused order puts the relevant passage last and only
// the coverage feature tells it apart.
func synthetic() []vaultData {
	var d vaultData
	for q := 0; q < 20; q++ {
		var qd query
		for i := 0; i < 10; i++ {
			var x [search.NumFeatures]float64
			x[search.FeatureFused] = 1 - float64(i)/10 + float64(q%3)/100
			rel := i == 9
			if rel {
				x[coverage] = 1
			}
			qd.X = append(qd.X, x)
			qd.Rel = append(qd.Rel, rel)
		}
		d.Queries = append(d.Queries, qd)
	}
	d.Made = len(d.Queries)
	return []vaultData{d}
}

func TestFitLearnsTheDecisiveFeature(t *testing.T) {
	var off [search.NumFeatures]bool
	for _, lambdaRank := range []bool{false, true} {
		m := fit(synthetic(), 0.01, off, lambdaRank)
		if m.Weight[coverage] <= 0 {
			t.Fatalf("lambdarank %v: coverage weight %g, want > 0", lambdaRank, m.Weight[coverage])
		}
		q := synthetic()[0].Queries[0]
		if m.Score(q.X[9]) <= m.Score(q.X[0]) {
			t.Errorf("lambdarank %v: the relevant passage scores %g, below the fused first %g", lambdaRank, m.Score(q.X[9]), m.Score(q.X[0]))
		}
	}
	// A heavy penalty keeps the fused order.
	m := fit(synthetic(), 100, off, false)
	q := synthetic()[0].Queries[0]
	if m.Score(q.X[9]) >= m.Score(q.X[0]) {
		t.Errorf("l2 100: the fused order did not stand: %g ≥ %g", m.Score(q.X[9]), m.Score(q.X[0]))
	}
	// A dropped feature keeps weight 0.
	off[coverage] = true
	if m := fit(synthetic(), 0.01, off, false); m.Weight[coverage] != 0 {
		t.Errorf("dropped coverage has weight %g", m.Weight[coverage])
	}
}

func TestCapHitAppliesThePerNoteCap(t *testing.T) {
	// Four passages of a.md, then the relevant one of b.md: fifth in the
	// pool, third once a.md may show two before the others.
	q := devQuestion{
		Paths: []string{"a.md", "a.md", "a.md", "a.md", "b.md"},
		Rel:   []bool{false, false, false, false, true},
	}
	order := []int{0, 1, 2, 3, 4}
	if got := capHit(order, q, 0, 4); got != 0 {
		t.Errorf("no cap, k 4: hit %d, want 0", got)
	}
	if got := capHit(order, q, 2, 3); got != 1 {
		t.Errorf("cap 2, k 3: hit %d, want 1", got)
	}
	if got := capHit(order, q, 2, 2); got != 0 {
		t.Errorf("cap 2, k 2: hit %d, want 0", got)
	}
}
