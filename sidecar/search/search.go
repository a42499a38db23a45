// Package search ranks passages for a query across the retrieval
// channels: keyword (BM25) today, dense and their fusion as they land.
package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/quire-app/quire/sidecar/bm25"
)

// Channel selects the retrieval channel.
type Channel string

// The channels. Hybrid is the default once dense retrieval exists.
const (
	BM25   Channel = "bm25"
	Dense  Channel = "dense"
	Hybrid Channel = "hybrid"
)

// ErrUnavailable is returned for a channel this build cannot serve.
var ErrUnavailable = errors.New("channel unavailable")

// ParseChannel checks a channel name from the command line or the wire.
func ParseChannel(s string) (Channel, error) {
	switch Channel(s) {
	case BM25, Dense, Hybrid:
		return Channel(s), nil
	}
	return "", fmt.Errorf("unknown channel %q (want bm25, dense or hybrid)", s)
}

// Passage is one ranked passage.
type Passage struct {
	ID     string  `json:"id"`
	Path   string  `json:"path"`
	Title  string  `json:"title"`
	Crumbs string  `json:"headingPath"`
	Start  int     `json:"start"`
	End    int     `json:"end"`
	Text   string  `json:"text"`
	Score  float64 `json:"score"`
}

// Searcher answers queries over the indexes it is given.
type Searcher struct {
	BM25 *bm25.Index
}

// Search returns up to k passages for query from the channel.
func (s *Searcher) Search(ctx context.Context, query string, k int, ch Channel) ([]Passage, error) {
	switch ch {
	case BM25, "":
		hits, err := s.BM25.Search(ctx, query, k)
		if err != nil {
			return nil, err
		}
		out := make([]Passage, len(hits))
		for i, h := range hits {
			out[i] = Passage{ID: h.ID, Path: h.Path, Title: h.Title, Crumbs: h.Crumbs, Start: h.Start, End: h.End, Text: h.Text, Score: h.Score}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%w: the %s channel needs vectors, which this index does not have yet; use --channel bm25", ErrUnavailable, ch)
	}
}
