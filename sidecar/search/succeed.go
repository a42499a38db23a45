package search

import (
	"context"
	"fmt"

	"github.com/quire-app/quire/sidecar/bm25"
	"github.com/quire-app/quire/sidecar/markdown"
)

// maxSuccessorPassages bounds the passages of a successor note read when
// none of them is in the pool.
const maxSuccessorPassages = 32

// succeed puts the note that replaces a superseded one (Successors) just
// before the superseded note's first passage: its best passage from the
// pool, else the passage of it that holds most of the query's words. A
// superseded note is thus demoted below what replaced it, whatever the
// words matched; a note whose successor cannot be found stays where it
// ranked (status lists its broken chain).
func (s *Searcher) succeed(ctx context.Context, t Terms, cs []Candidate) ([]Candidate, error) {
	if s.Successors == nil {
		return cs, nil
	}
	var q *queryConcepts
	placed := map[string]bool{}
	raised := map[string]bool{} // notes already placed, or raised

	out := make([]Candidate, 0, len(cs)+1)
	for i, c := range cs {
		if placed[c.ID] {
			continue
		}
		if next, ok := s.Successors(c.Path); ok && !raised[next] {
			raised[next] = true
			best := -1
			for j := i + 1; j < len(cs); j++ {
				if cs[j].Path == next && !placed[cs[j].ID] {
					best = j
					break
				}
			}
			switch {
			case best >= 0:
				out = append(out, cs[best])
				placed[cs[best].ID] = true
			default:
				if q == nil {
					qc := s.concepts(ctx, t)
					q = &qc
				}
				p, ok, err := s.bestOf(ctx, q, next)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, Candidate{Passage: p})
				}
			}
		}
		out = append(out, c)
		placed[c.ID] = true
		raised[c.Path] = true // already above anything it succeeds
	}
	return out, nil
}

// bestOf is the passage of note path holding most of the query's words.
func (s *Searcher) bestOf(ctx context.Context, q *queryConcepts, path string) (Passage, bool, error) {
	ids := make([]string, maxSuccessorPassages)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s#%d", path, i)
	}
	docs, err := s.BM25.Docs(ctx, ids)
	if err != nil {
		return Passage{}, false, err
	}
	var best Passage
	bestShare, found := -1.0, false
	for _, id := range ids {
		h, ok := docs[id]
		if !ok {
			continue
		}
		tm := q.match(h.Text)
		head := q.match(h.Title + "\n" + markdown.Breadcrumb(h.Title, h.Headings))
		if sh := q.share(tm.held | head.held); sh > bestShare {
			best, bestShare, found = toPassages([]bm25.Hit{h})[0], sh, true
		}
	}
	return best, found, nil
}
