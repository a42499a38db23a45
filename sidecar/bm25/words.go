package bm25

import (
	"bytes"
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/quire-app/quire/sidecar/lang"
)

// wordsQuery builds the query as one group per query word: the word in
// every language's title, headings and body and in the aliases, and each
// of its translations in its language's fields, at their weights. A
// group scores the sum of what it matched, and the query is Bleve's
// disjunction of the groups, whose coordination factor is then the share
// of the question's words a passage holds, each counted once whatever
// field or language it was found in.
//
// One disjunction of field × language clauses (FieldWeights.ByField)
// made the factor count clauses: a title match, present on every passage
// of its note, multiplied each passage's body score, and a question's
// translations, grouped per language and weight, filled their small
// clauses (three first translations: 3/3) while its own words, other
// languages' stop words among them, filled theirs at 3/11 (README,
// "Figures"). The stop words of the query's language are left out here:
// its own analyzer drops them, the other languages' analyzers do not.
//
// It returns nil when text has no word to search.
func wordsQuery(text string, extra []Term, families []string, boosts map[string]float64) (q query.Query, groups int) {
	ql := lang.Detect(text)
	var words []string
	seen := map[string]bool{}
	owner := map[string]string{} // a word as lang.Words cuts it → the query word holding it
	raw := map[string]string{}   // a query word → the text between spaces it was cut from, first seen
	for _, r := range strings.Fields(strings.ToLower(text)) {
		f := strings.TrimFunc(r, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if f == "" || seen[f] {
			continue
		}
		raw[f] = r
		seen[f] = true
		words = append(words, f)
		for _, p := range lang.Words(f) {
			if _, ok := owner[p]; !ok {
				owner[p] = f
			}
		}
	}
	translations := map[string][]Term{}
	near := map[string][]Term{}
	for _, t := range extra {
		if t.Boost {
			continue
		}
		if t.Near != NearNone {
			src := strings.ToLower(t.Source)
			if o, ok := owner[src]; ok {
				src = o
			}
			near[src] = append(near[src], t)
			continue
		}
		src := strings.ToLower(t.Source)
		if o, ok := owner[src]; ok {
			src = o
		}
		if !seen[src] {
			seen[src] = true
			words = append(words, src)
		}
		translations[src] = append(translations[src], t)
	}
	// A query whose language is unknown (most short ones) leaves out the
	// stop words of every language the vault's notes are in: "the" of
	// "the monstera" is no word to find Italian notes by.
	stop := func(w string) bool {
		if ql != lang.Unknown {
			return lang.IsStop(ql, w)
		}
		for _, fam := range families {
			if l := lang.Parse(fam); l != lang.Unknown && lang.IsStop(l, w) {
				return true
			}
		}
		return false
	}
	content := words[:0:0]
	for _, w := range words {
		if !stop(w) {
			content = append(content, w)
		}
	}
	if len(content) == 0 {
		content = words // only stop words: search them
	}
	fields := []string{"title", "headings", "body"}
	var out []query.Query
	for _, w := range content {
		var qs clauses
		for _, fam := range families {
			for _, f := range fields {
				qs.add(w, f+"_"+fam, boosts[f])
			}
		}
		qs.add(w, "aliases", boosts["aliases"])
		qs.addExact(raw[w], boosts[exactField])
		for _, t := range translations[w] {
			for _, f := range fields {
				qs.add(t.Text, f+"_"+fieldLang(t.Lang), boosts[f]*t.Weight)
			}
		}
		var fallback clauses
		for _, t := range near[w] {
			for _, fam := range families {
				for _, f := range fields {
					fallback.addNear(t, f+"_"+fam, boosts[f]*t.Weight)
				}
			}
		}
		if len(qs) > 0 {
			out = append(out, &sumQuery{qs: qs, fallback: fallback})
		}
	}
	if len(out) == 0 {
		return nil, 0
	}
	return query.NewDisjunctionQuery(out), len(out)
}

// NearPrefixMin is the shortest word searched as a prefix: shorter ones
// begin too many words to be worth it. NearFuzzyPrefix is how many first
// letters a typo keeps: Bleve then walks far fewer terms.
const (
	NearPrefixMin   = 3
	NearFuzzyPrefix = 1
)

// addNear adds the looser form of a word that t stands for, on one field.
func (qs *clauses) addNear(t Term, field string, boost float64) {
	if boost == 0 {
		return
	}
	switch t.Near {
	case NearPrefix:
		if utf8.RuneCountInString(t.Text) < NearPrefixMin {
			return
		}
		pq := query.NewPrefixQuery(t.Text)
		pq.SetField(field)
		pq.SetBoost(boost)
		*qs = append(*qs, pq)
	case NearFuzzy:
		fq := query.NewFuzzyQuery(t.Text)
		fq.SetField(field)
		fq.SetFuzziness(min(max(t.Edits, 1), 2))
		fq.SetPrefix(NearFuzzyPrefix)
		fq.SetBoost(boost)
		*qs = append(*qs, fq)
	}
}

// sumQuery matches what any of its clauses matches and scores the sum of
// the matching clauses' scores: a disjunction without Bleve's
// coordination factor, which would multiply a word found in three
// fields by three. The fallback clauses (a word's prefix or typo forms)
// score only a passage that no other clause matched, so an exact match
// always comes first and keeps the score it had without them.
type sumQuery struct {
	qs, fallback []query.Query
}

// Searcher implements query.Query.
func (q *sumQuery) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	all := append(q.qs[:len(q.qs):len(q.qs)], q.fallback...)
	recs := make([]*recorder, 0, len(all))
	ss := make([]search.Searcher, 0, len(all))
	for _, c := range all {
		s, err := c.Searcher(ctx, i, m, options)
		if err != nil {
			for _, s := range ss {
				s.Close()
			}
			return nil, err
		}
		r := &recorder{Searcher: s}
		recs = append(recs, r)
		ss = append(ss, r)
	}
	d, err := searcher.NewDisjunctionSearcher(ctx, i, ss, 0, options)
	if err != nil {
		for _, s := range ss {
			s.Close()
		}
		return nil, err
	}
	return &sumSearcher{Searcher: d, recs: recs, primary: len(q.qs)}, nil
}

// recorder remembers the last two documents its clause returned, with
// their scores. Bleve's disjunction searchers advance the clauses that
// matched a document once before returning it (Next and Advance alike),
// so a clause matched the returned document if it is its current or
// previous one (TestSumQueryScoresTheSum checks this against each
// clause searched alone).
type recorder struct {
	search.Searcher
	cur, prev           index.IndexInternalID
	curScore, prevScore float64
}

func (r *recorder) note(d *search.DocumentMatch) {
	r.prev, r.prevScore = r.cur, r.curScore
	if d == nil {
		r.cur, r.curScore = nil, 0
		return
	}
	r.cur = append(r.cur[:0:0], d.IndexInternalID...)
	r.curScore = d.Score
}

func (r *recorder) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	d, err := r.Searcher.Next(ctx)
	r.note(d)
	return d, err
}

func (r *recorder) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	d, err := r.Searcher.Advance(ctx, id)
	r.note(d)
	return d, err
}

// sumSearcher is the disjunction over the recorders, rescored as the sum
// of the matching clauses' scores.
type sumSearcher struct {
	search.Searcher
	recs    []*recorder
	primary int // recs[primary:] are the fallback clauses
}

func (s *sumSearcher) rescore(d *search.DocumentMatch) {
	if d == nil {
		return
	}
	sum := sumOf(s.recs[:s.primary], d)
	if sum == 0 {
		sum = sumOf(s.recs[s.primary:], d)
	}
	d.Score = sum
	if d.Expl != nil {
		d.Expl = &search.Explanation{Value: sum, Message: "sum of the word's matches, no coordination:", Children: d.Expl.Children}
	}
}

// sumOf adds the scores of the clauses that matched d.
func sumOf(recs []*recorder, d *search.DocumentMatch) float64 {
	var sum float64
	for _, r := range recs {
		switch {
		case bytes.Equal(r.cur, d.IndexInternalID):
			sum += r.curScore
		case bytes.Equal(r.prev, d.IndexInternalID):
			sum += r.prevScore
		}
	}
	return sum
}

func (s *sumSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Next(ctx)
	s.rescore(d)
	return d, err
}

func (s *sumSearcher) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Advance(ctx, id)
	s.rescore(d)
	return d, err
}
