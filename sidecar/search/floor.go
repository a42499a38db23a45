package search

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"

	"github.com/quire-app/quire/sidecar/index"
)

// Floor is where a vault's cosine stops meaning anything. Dense hits
// always exist, so without a floor every query, "qwxz" too, fills k rows
// by meaning. How close a made-up word comes to some passage depends on
// the embedder and on the vault (the more passages, the closer the best
// one by chance: a query of made-up letters reaches a median best cosine
// of 0.45 on the dev vaults with the built-in embedder, 0.37 on the
// nine-note sample vault), so the floor is measured on the vault itself:
// the best cosine of FloorQueries queries of made-up words, at the
// FloorShare quantile. A passage the keywords found stays whatever its
// cosine. `go run ./internal/calibrate` reads the rule against the dev
// sets (README, "Figures").
//
// One Floor serves the searchers of one index: it measures again when
// the number of vectors has changed by a tenth since it last did.
type Floor struct {
	// Vectors reports how many vectors the index holds now.
	Vectors func() int

	mu      sync.Mutex
	at      int // vectors when measured; 0: never
	cosine  float64
	measure func(ctx context.Context, d DenseIndex) (float64, error)
}

// The floor's rule, chosen once for every vault and embedder (README,
// "Figures"): 64 made-up queries, the floor at their median.
const (
	FloorQueries = 64
	FloorShare   = 0.5
)

// Cosine returns the floor for the dense index d; 0 for a nil Floor or
// an empty index.
func (f *Floor) Cosine(ctx context.Context, d DenseIndex) (float64, error) {
	if f == nil || d == nil {
		return 0, nil
	}
	n := f.Vectors()
	f.mu.Lock()
	defer f.mu.Unlock()
	if n == 0 {
		return 0, nil
	}
	if f.at > 0 && 10*abs(n-f.at) < f.at {
		return f.cosine, nil
	}
	measure := f.measure
	if measure == nil {
		measure = NoiseFloor
	}
	c, err := measure(ctx, d)
	if err != nil {
		return 0, fmt.Errorf("dense floor: %w", err)
	}
	f.at, f.cosine = n, c
	return c, nil
}

func abs(n int) int { return max(n, -n) }

// NoiseFloor measures the floor rule on d: the FloorShare quantile of
// the best cosines of FloorQueries made-up queries.
func NoiseFloor(ctx context.Context, d DenseIndex) (float64, error) {
	best := make([]float64, 0, FloorQueries)
	for _, q := range MadeUp(FloorQueries, 1) {
		hits, err := d.SearchDense(ctx, q, 1)
		if err != nil {
			return 0, err
		}
		if len(hits) > 0 {
			best = append(best, float64(hits[0].Score))
		}
	}
	return Quantile(best, FloorShare), nil
}

// Quantile is the q quantile of xs (the value below which a share q of
// them lies); 0 for none.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// MadeUp returns n queries of one to three made-up words, three to nine
// letters each, as a slip of the keyboard or a half-typed word would
// be; the same ones for the same seed.
func MadeUp(n int, seed int64) []string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	r := rand.New(rand.NewSource(seed))
	out := make([]string, n)
	for i := range out {
		words := make([]string, 1+r.Intn(3))
		for j := range words {
			b := make([]byte, 3+r.Intn(7))
			for k := range b {
				b[k] = letters[r.Intn(len(letters))]
			}
			words[j] = string(b)
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}

// aboveFloor keeps the dense hits at or above the floor.
func (s *Searcher) aboveFloor(ctx context.Context, dh []index.DenseHit) ([]index.DenseHit, error) {
	floor, err := s.Floor.Cosine(ctx, s.Dense)
	if err != nil || floor == 0 {
		return dh, err
	}
	out := dh[:0:0]
	for _, h := range dh {
		if float64(h.Score) >= floor {
			out = append(out, h)
		}
	}
	return out, nil
}
