// Package search ranks passages for a query across the retrieval
// channels: keyword (BM25) today, dense and their fusion as they land.
package search

import (
	"strings"

	"context"
	"errors"
	"fmt"
	"github.com/quire-app/quire/sidecar/lang"

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
	// Langs lists the languages of the vault's notes; queries are
	// translated into those that have a word list with the query's.
	Langs []string
}

// Search returns up to k passages for query from the channel.
func (s *Searcher) Search(ctx context.Context, query string, k int, ch Channel) ([]Passage, error) {
	switch ch {
	case BM25, "":
		_, terms := s.Translations(query)
		hits, err := s.BM25.SearchTerms(ctx, query, terms, k)
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

// Translations detects the query's language and translates its words into
// the vault's other languages: a non-English query into English, an
// English one into each other language present. The user's own words are
// searched as they are; these terms come on top at lower weight.
func (s *Searcher) Translations(query string) (lang.Lang, []bm25.Term) {
	from := lang.Detect(query)
	if from == lang.Unknown {
		from = lang.English
	}
	var terms []bm25.Term
	for _, to := range s.targets(from) {
		ts, err := lang.Translate(query, from, to, lang.Options{})
		if err != nil {
			continue // no word list for the pair: search the words as they are
		}
		for _, t := range ts {
			if t.Via != lang.ViaKept {
				terms = append(terms, bm25.Term{Text: t.Text, Lang: string(to), Weight: t.Weight})
			}
		}
	}
	return from, terms
}

// Explain says how a query is read: its language and the translations used.
func (s *Searcher) Explain(query string) string {
	from, _ := s.Translations(query)
	var b strings.Builder
	fmt.Fprintf(&b, "query language: %s\n", from)
	for _, to := range s.targets(from) {
		e, err := lang.Explain(query, from, to, lang.Options{})
		if err == nil {
			b.WriteString(e.String())
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (s *Searcher) targets(from lang.Lang) []lang.Lang {
	var out []lang.Lang
	for _, l := range s.Langs {
		to := lang.Parse(l)
		if to == lang.Unknown || to == from {
			continue
		}
		if from == lang.English || to == lang.English {
			out = append(out, to)
		}
	}
	return out
}
