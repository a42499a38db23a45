package search

import (
	"context"
	"math"
	"slices"
	"testing"
)

func TestProximityAndPhrase(t *testing.T) {
	// The masks of a text's words in order; query words a=1, b=2, c=4.
	for _, tc := range []struct {
		name      string
		masks     []uint64
		words     int
		prox, phr float64
	}{
		{"side by side in order", []uint64{0, 1, 2, 4, 0}, 3, 1, 1},
		{"spread", []uint64{1, 0, 0, 2, 0, 4}, 3, 0.5, 0},
		{"the shortest run counts", []uint64{1, 0, 0, 0, 2, 0, 1, 2}, 2, 1, 1},
		{"a reversed pair is no phrase", []uint64{2, 1}, 2, 1, 0},
		{"one word held", []uint64{1, 0, 1}, 3, 0, 0},
		{"one text word for two query words", []uint64{3}, 2, 1, 0},
	} {
		tm := textMatch{masks: tc.masks}
		for _, m := range tc.masks {
			tm.held |= m
		}
		if got := proximity(tm); math.Abs(got-tc.prox) > 1e-9 {
			t.Errorf("%s: proximity %v, want %v", tc.name, got, tc.prox)
		}
		if got := phrase(tm, tc.words); math.Abs(got-tc.phr) > 1e-9 {
			t.Errorf("%s: phrase %v, want %v", tc.name, got, tc.phr)
		}
	}
}

// The fitting program learns from PoolFeatures and scores its variants
// by ordering that pool with the model, then capping each note
// (Diversify): search with the built-in reranker must give that same
// top k, or the dev figures it chooses by are not what users get.
func TestPoolFeaturesAreWhatSearchReranks(t *testing.T) {
	s, qs := generatedSearcher(t, 150, 30)
	s.Rerank = RerankBuiltin
	s.PerNote = 1 // notes of the generated vault seldom put three passages in a top 5
	ctx := context.Background()
	const k = 5
	reordered := 0
	for _, q := range qs {
		pool, err := s.PoolFeatures(ctx, q.Query, BM25)
		if err != nil {
			t.Fatal(err)
		}
		paths := make([]string, len(pool.Candidates))
		for i, c := range pool.Candidates {
			paths[i] = c.Path
		}
		idx, _ := s.model(BM25).Rank(pool.Features, paths)
		ps := make([]Passage, len(idx))
		for r, i := range idx {
			ps[r] = pool.Candidates[i].Passage
			if i != r {
				reordered++
			}
		}
		ps = Diversify(ps, s.PerNote)[:min(k, len(ps))]
		got, err := s.Search(ctx, q.Query, k, BM25)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(ps) {
			t.Fatalf("%q: search gave %d passages, the pool's order %d", q.Query, len(got), len(ps))
		}
		for i := range ps {
			if got[i].ID != ps[i].ID {
				t.Errorf("%q: rank %d is %s, the fitted pool's order has %s", q.Query, i, got[i].ID, ps[i].ID)
			}
		}
	}
	if reordered == 0 {
		t.Error("the model reordered no pool: the test shows nothing")
	}
}

// A model by note decides where each note's passages stand; which of
// them stands first stays the fused order's choice.
func TestRankByNoteKeepsTheFusedOrderInsideANote(t *testing.T) {
	// Scored by the first feature alone: a.md's second passage best,
	// then b.md, then a.md's first, then c.md beyond the depth.
	m := Model{Depth: 3}
	m.Scale[0], m.Weight[0] = 1, 1
	xs := make([][NumFeatures]float64, 4)
	xs[0][0], xs[1][0], xs[2][0], xs[3][0] = 0.1, 0.9, 0.5, 1
	paths := []string{"a.md", "a.md", "b.md", "c.md"}
	got, _ := m.Rank(xs, paths)
	if want := []int{1, 2, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("by passage: %v, want %v", got, want)
	}
	m.ByNote = true
	got, scores := m.Rank(xs, paths)
	if want := []int{0, 2, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("by note: %v, want %v", got, want)
	}
	if want := []float64{0.9, 0.5, 0.1}; !slices.Equal(scores, want) {
		t.Errorf("by note: scores %v, want %v (each place keeps its score)", scores, want)
	}
}
