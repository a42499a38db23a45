package search

import (
	"context"
	"strings"
)

// RelatedCosines is how many passages closest by meaning give related
// notes their cosine (NoteCosines).
const RelatedCosines = 400

// Far reports whether the note at path is below the floor by cos and
// floor (NoteCosines): only a note with vectors can be (Searcher.Embedded),
// since one not embedded yet is unknown, not far.
func (s *Searcher) Far(cos map[string]float64, floor float64, path string) bool {
	return cos != nil && cos[path] < floor && (s.Embedded == nil || s.Embedded(path))
}

// NoteCosines returns, for the notes of the RelatedCosines passages
// closest in meaning to text, each note's best cosine, and the vault's
// dense floor (Floor): a related note below it is no closer to the text
// than made-up words come to some passage, and is better left out than
// shown as a connection. On shared/bench's ariostea-wiki, whose notes
// name their topic, the floor drops 3 of the 16 related rows of another
// topic and 4 of the 494 of the same (go run ./internal/relatedfloor,
// README "Figures"). It returns nil when the searcher has no dense
// channel: call it only where the text may be embedded (a private
// note's text goes to no remote embedder).
func (s *Searcher) NoteCosines(ctx context.Context, text string) (map[string]float64, float64, error) {
	if s.Dense == nil {
		return nil, 0, nil
	}
	floor, err := s.Floor.Cosine(ctx, s.Dense)
	if err != nil {
		return nil, 0, err
	}
	hits, err := s.Dense.SearchDense(ctx, text, RelatedCosines)
	if err != nil {
		return nil, 0, err
	}
	cos := map[string]float64{}
	for _, h := range hits {
		p, _, _ := strings.Cut(h.ID, "#")
		cos[p] = max(cos[p], float64(h.Score))
	}
	return cos, floor, nil
}
