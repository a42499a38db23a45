package search

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang"
)

// German writes a compound noun as one word: a question's "Käsesorten"
// (kinds of cheese) meets no note that speaks of the "Sorten" of "Käse"
// without ever writing that compound. A long word of a German query
// that no German passage holds is also searched as two parts that German
// passages do hold, split where the first part is shortest. It is
// searched beside the word, never instead of it.
const (
	compoundMin  = 8 // letters: a shorter word is seldom a compound
	compoundPart = 4 // letters each part has at least
)

// compoundParts returns query with the parts of its unknown German
// compounds added, or query itself when there are none.
func (s *Searcher) compoundParts(ctx context.Context, query string, ql lang.Lang) (string, error) {
	if ql != lang.German {
		return query, nil
	}
	held := func(w string) (bool, error) {
		n, err := s.BM25.HoldingIn(ctx, w, string(lang.German))
		return n > 0, err
	}
	var parts []string
	for _, w := range lang.Words(query) {
		n := utf8.RuneCountInString(w)
		if n < compoundMin || lang.IsStop(lang.German, w) {
			continue
		}
		ok, err := held(w)
		if err != nil {
			return query, err
		}
		if ok {
			continue
		}
		rs := []rune(w)
		for i := compoundPart; i <= n-compoundPart; i++ {
			head, tail := string(rs[:i]), string(rs[i:])
			hok, err := held(head)
			if err != nil {
				return query, err
			}
			if !hok {
				continue
			}
			tok, err := held(tail)
			if err != nil {
				return query, err
			}
			if tok {
				parts = append(parts, head, tail)
				break
			}
		}
	}
	if len(parts) == 0 {
		return query, nil
	}
	return query + " " + strings.Join(parts, " "), nil
}
