package search

import (
	"slices"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang"
)

// Matcher marks the words of passages that a query matched. It is built
// once per query.
type Matcher struct {
	langs []lang.Lang
	stems map[lang.Lang]map[string]bool
}

// Matcher returns the matcher for query: a word matches when it has the
// stem of a query word (or of one of its translations into the vault's
// languages) in one of the vault's languages, as the keyword search
// matched it, so "feeding" marks "feeds" and "Café" marks "cafe"; stop
// words and one-letter words never match.
func (s *Searcher) Matcher(query string) *Matcher {
	m := &Matcher{stems: map[lang.Lang]map[string]bool{}}
	from := lang.Detect(query)
	for _, code := range s.Langs {
		if l := lang.Parse(code); l != lang.Unknown && !slices.Contains(m.langs, l) {
			m.langs = append(m.langs, l)
		}
	}
	if from != lang.Unknown && !slices.Contains(m.langs, from) {
		m.langs = append(m.langs, from)
	}
	if len(m.langs) == 0 {
		m.langs = []lang.Lang{lang.English}
	}
	add := func(l lang.Lang, w string) {
		if utf8.RuneCountInString(w) < 2 || lang.IsStop(l, w) {
			return
		}
		if m.stems[l] == nil {
			m.stems[l] = map[string]bool{}
		}
		m.stems[l][lang.Fold(lang.Stem(l, w))] = true
	}
	for _, w := range lang.Words(query) {
		for _, l := range m.langs {
			add(l, w)
		}
	}
	_, extra := s.Translations(query)
	for _, t := range extra {
		for _, w := range lang.Words(t.Text) {
			add(lang.Parse(t.Lang), w)
		}
	}
	return m
}

// Words returns the distinct words of text that match, lowercased, in
// the order they first occur: what a front end marks in the passage.
func (m *Matcher) Words(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range lang.Words(text) {
		if seen[w] {
			continue
		}
		seen[w] = true
		if utf8.RuneCountInString(w) < 2 {
			continue
		}
		for _, l := range m.langs {
			if m.stems[l][lang.Fold(lang.Stem(l, w))] && !lang.IsStop(l, w) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}
