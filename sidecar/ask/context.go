package ask

import (
	"strings"

	"github.com/quire-app/quire/sidecar/search"
)

// Passage is a retrieved passage as given to the model: numbered, with the
// tokens it costs in the prompt.
type Passage struct {
	// N is the id the model cites it by: [N]. Passages are numbered 1…n in
	// the order they are given.
	N int
	search.Passage
	// Rank is its place in the retrieval order, 0 first.
	Rank int
	// Tokens is what its block in the prompt costs (cl100k).
	Tokens int
}

// Pack chooses passages for a prompt of at most budget tokens: whole
// passages only (one that does not fit is skipped, never cut, and a
// smaller one after it may still fit), most relevant first, without
// duplicates (the same id, a passage inside another of the same note,
// or the same text twice). The chosen passages are grouped by note, notes
// in the order of their best passage and passages within a note by
// relevance, and numbered 1…n in that order. count measures a passage's
// block; nil means cl100k.
func Pack(ranked []search.Passage, budget int, count func(string) int) []Passage {
	if count == nil {
		count = countTokens
	}
	var chosen []Passage
	seenText := map[string]bool{}
	used := 0
	for rank, p := range ranked {
		if dup(chosen, p) {
			continue
		}
		key := normalize(p.Text)
		if seenText[key] {
			continue
		}
		// The number costs a token or two whatever it turns out to be.
		cost := count(block(0, p))
		if used+cost > budget {
			continue
		}
		used += cost
		seenText[key] = true
		chosen = append(chosen, Passage{Passage: p, Rank: rank, Tokens: cost})
	}

	// Group by note, keeping the notes in order of their best passage.
	order := map[string]int{}
	for _, p := range chosen {
		if _, ok := order[p.Path]; !ok {
			order[p.Path] = len(order)
		}
	}
	groups := make([][]Passage, len(order))
	for _, p := range chosen {
		i := order[p.Path]
		groups[i] = append(groups[i], p)
	}
	out := make([]Passage, 0, len(chosen))
	for _, g := range groups {
		for _, p := range g {
			p.N = len(out) + 1
			out = append(out, p)
		}
	}
	return out
}

// dup reports whether p repeats a chosen passage: the same id, or a byte
// range of the same note that lies inside, or holds, a chosen one.
func dup(chosen []Passage, p search.Passage) bool {
	for _, c := range chosen {
		if c.ID == p.ID {
			return true
		}
		if c.Path != p.Path || c.End <= c.Start || p.End <= p.Start {
			continue
		}
		if (p.Start >= c.Start && p.End <= c.End) || (c.Start >= p.Start && c.End <= p.End) {
			return true
		}
	}
	return false
}

// normalize lowercases s, folds typographic quotes and dashes, drops
// Markdown emphasis and link brackets and collapses whitespace, so that a
// quotation can be found in a passage whatever the spacing or markup.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range strings.ToLower(s) {
		switch r {
		case '*', '_', '`', '[', ']':
			continue
		case '‘', '’', 'ʼ', '′':
			r = '\''
		case '“', '”', '„', '«', '»', '″':
			r = '"'
		case '–', '—', '‑':
			r = '-'
		case ' ', '\t', '\n', '\r', '\u00a0', '\u2009', '\u202f':
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
