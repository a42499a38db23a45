package lang

import (
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/spanish"
)

// Stem returns the stem of word in language l: Snowball for English,
// Italian, Spanish, German and French (the same stemmers Bleve's
// analyzers run), the light Czech stemmer for Czech, and word unchanged
// for Unknown. word must be one lowercased word with its accents: the
// Snowball rules look at "à" and "ñ", the Czech ones at "ě" and "ů".
func Stem(l Lang, word string) string {
	var stem func(*snowballstem.Env) bool
	switch l {
	case English:
		stem = english.Stem
	case Italian:
		stem = italian.Stem
	case Spanish:
		stem = spanish.Stem
	case German:
		stem = german.Stem
	case French:
		stem = french.Stem
	case Czech:
		return stemCzech(word)
	default:
		return word
	}
	env := snowballstem.NewEnv(word)
	stem(env)
	return env.Current()
}
