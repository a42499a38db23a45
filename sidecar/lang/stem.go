package lang

import (
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/turkish"
)

// snowball are the Snowball stemmers, the same ones Bleve's analyzers run.
var snowball = map[Lang]func(*snowballstem.Env) bool{
	English: english.Stem, Italian: italian.Stem, Spanish: spanish.Stem,
	German: german.Stem, French: french.Stem, Dutch: dutch.Stem,
	Swedish: swedish.Stem, Danish: danish.Stem, Norwegian: norwegian.Stem,
	Finnish: finnish.Stem, Hungarian: hungarian.Stem, Romanian: romanian.Stem,
	Russian: russian.Stem, Turkish: turkish.Stem,
}

// Stem returns the stem of word in language l: Snowball where Bleve runs
// it, the light Czech stemmer for Czech, and word unchanged for Unknown
// and for languages stemmed only inside Bleve's analyzers (Portuguese,
// Arabic, Hindi: see package filter), which have no word list to look
// stems up in. word must be one lowercased word with
// its accents: the Snowball rules look at "à" and "ñ", the Czech ones at
// "ě" and "ů".
func Stem(l Lang, word string) string {
	if l == Czech {
		return stemCzech(word)
	}
	stem := snowball[l]
	if stem == nil {
		return word
	}
	env := snowballstem.NewEnv(word)
	stem(env)
	return env.Current()
}
