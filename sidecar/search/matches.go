package search

import (
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang"
)

// Matcher marks the words of passages that a query matched. It is built
// once per query.
type Matcher struct {
	langs []lang.Lang
	stems map[lang.Lang]map[string]bool
}

// Matcher returns the matcher for the search that read t: a word matches
// when it has the stem of a query word (or of one of its translations into
// the vault's languages) in one of the vault's languages, as the keyword
// search matched it, so "feeding" marks "feeds" and "Café" marks "cafe";
// stop words and one-letter words never match. It translates nothing: the
// search did.
func (t Terms) Matcher() *Matcher {
	m := &Matcher{langs: t.langs, stems: map[lang.Lang]map[string]bool{}}
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
	for _, w := range lang.Words(t.Query) {
		for _, l := range m.langs {
			add(l, w)
		}
	}
	for _, tr := range t.Translations {
		for _, w := range lang.Words(tr.Text) {
			add(lang.Parse(tr.Lang), w)
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
