package search

import (
	"strings"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/bm25"
	"github.com/quire-app/quire/sidecar/lang"
)

// Matcher marks the words of passages that a query matched. It is built
// once per query.
type Matcher struct {
	langs []lang.Lang
	stems map[lang.Lang]map[string]bool
	near  []bm25.Term
	// stops marks stop words too: the query is made of nothing else.
	stops bool
}

// Matcher returns the matcher for the search that read t: a word matches
// when it has the stem of a query word (or of one of its translations into
// the vault's languages) in one of the vault's languages, as the keyword
// search matched it, so "feeding" marks "feeds" and "Café" marks "cafe";
// stop words and one-letter words never match. A word also matches a
// looser form the search read (Terms.Near): "Monstera" for "monstra",
// "sourdough" for "sourd" being typed. It translates nothing: the search
// did.
//
// A stop word of the query's language, or of any vault language when the
// query's is unknown, marks nothing in any language: "the" of an English
// query is not an Italian word to stem, "come" of an Italian one not an
// English verb. A query of stop words alone marks them.
func (t Terms) Matcher() *Matcher {
	m := &Matcher{langs: t.langs, stems: map[lang.Lang]map[string]bool{}}
	if len(m.langs) == 0 {
		m.langs = []lang.Lang{lang.English}
	}
	words := lang.Words(t.Query)
	var content []string
	for _, w := range words {
		if !t.stop(m.langs, w) {
			content = append(content, w)
		}
	}
	m.stops = len(content) == 0
	if m.stops {
		content = words
	}
	for _, n := range t.Near {
		if m.stops || !t.stop(m.langs, strings.ToLower(n.Source)) {
			m.near = append(m.near, n)
		}
	}
	add := func(l lang.Lang, w string) {
		if utf8.RuneCountInString(w) < 2 || !m.stops && lang.IsStop(l, w) {
			return
		}
		if m.stems[l] == nil {
			m.stems[l] = map[string]bool{}
		}
		m.stems[l][lang.Fold(lang.Stem(l, w))] = true
	}
	for _, w := range content {
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
		if m.matches(w) {
			out = append(out, w)
		}
	}
	return out
}

func (m *Matcher) matches(w string) bool {
	for _, l := range m.langs {
		if m.stems[l][lang.Fold(lang.Stem(l, w))] && (m.stops || !lang.IsStop(l, w)) {
			return true
		}
	}
	if len(m.near) == 0 {
		return false
	}
	f := lang.Fold(w)
	for _, n := range m.near {
		switch n.Near {
		case bm25.NearPrefix:
			if utf8.RuneCountInString(n.Text) >= bm25.NearPrefixMin && strings.HasPrefix(f, n.Text) {
				return true
			}
		case bm25.NearFuzzy:
			if within(f, n.Text, n.Edits, bm25.NearFuzzyPrefix) {
				return true
			}
		}
	}
	return false
}

// stop reports whether w, a word of the query, is a stop word of its
// language, or of any of langs when the query's language is unknown.
func (t Terms) stop(langs []lang.Lang, w string) bool {
	if t.Lang != lang.Unknown {
		return lang.IsStop(t.Lang, w)
	}
	for _, l := range langs {
		if lang.IsStop(l, w) {
			return true
		}
	}
	return false
}

// within reports whether a and b are at most d edits apart (Levenshtein)
// and share their first keep runes, as the keyword search's typo forms
// match.
func within(a, b string, d, keep int) bool {
	ra, rb := []rune(a), []rune(b)
	if abs(len(ra)-len(rb)) > d || len(ra) < keep || len(rb) < keep || string(ra[:keep]) != string(rb[:keep]) {
		return false
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			best = min(best, cur[j])
		}
		if best > d {
			return false
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)] <= d
}
