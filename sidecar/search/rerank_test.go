package search

import (
	"math"
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
