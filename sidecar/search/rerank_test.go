package search

import (
	"context"
	"math"
	"sort"
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
		m := s.model(BM25)
		idx := make([]int, len(pool.Candidates))
		for i := range idx {
			idx[i] = i
		}
		head := idx
		if m.Depth > 0 {
			head = idx[:min(m.Depth, len(idx))]
		}
		sort.SliceStable(head, func(a, b int) bool { return m.Score(pool.Features[head[a]]) > m.Score(pool.Features[head[b]]) })
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
