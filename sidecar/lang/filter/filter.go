// Package filter makes package lang's stemmers and accent folding
// available to Bleve analyzers: it registers token filters for lang.Stem
// (the Snowball stemmers and the light Czech one, which Bleve lacks) and
// for lang.Fold, and names the stemmer filter to use for each language so
// that the index stems exactly as query translation does.
//
// A language's analyzer should run: unicode tokenizer → to_lower → the
// language's stop filter → StemName(l) → FoldName. Folding comes last
// because the stemmers read accents; Bleve's asciifolding is a character
// filter, which would fold before tokenizing, hence FoldName.
package filter

import (
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/ar"
	"github.com/blevesearch/bleve/v2/analysis/lang/hi"
	"github.com/blevesearch/bleve/v2/analysis/lang/pt"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/quire-app/quire/sidecar/internal/memo"
	"github.com/quire-app/quire/sidecar/lang"
)

// Registered filter names.
const (
	// CzechName is the light Czech stemmer.
	CzechName = "quire_stem_cs_light"
	// FoldName removes diacritics from tokens with lang.Fold.
	FoldName = "quire_fold"
)

// stemmers are the stemmer filters. For the languages lang.Stem stems,
// they run lang.Stem, the Snowball stemmers Bleve's own filters run (the
// index stems exactly as query translation does), each word's stem
// remembered: stemming every word anew took two fifths of the analysis
// of a cold index (issue 30).
var stemmers = func() map[lang.Lang]string {
	out := map[lang.Lang]string{
		lang.Czech: CzechName,
		// Stemmed only in the index: no word list looks their stems up.
		lang.Portuguese: pt.LightStemmerName, lang.Arabic: ar.StemmerName, lang.Hindi: hi.StemmerName,
	}
	for _, l := range []lang.Lang{lang.English, lang.Italian, lang.Spanish, lang.German, lang.French,
		lang.Dutch, lang.Swedish, lang.Danish, lang.Norwegian, lang.Finnish, lang.Hungarian,
		lang.Romanian, lang.Russian, lang.Turkish} {
		out[l] = "quire_stem_" + string(l)
	}
	return out
}()

// StemName returns the Bleve token filter that stems l, or "" when l has
// no stemmer (Unknown, or a language Bleve does not stem). Put it after
// lowercasing and before any accent folding: the stemmers read accents.
func StemName(l lang.Lang) string { return stemmers[l] }

// wordSlots is the size of each language's table of stems: a vault's
// common words each keep a slot.
const wordSlots = 1 << 15

// Stemmer is a Bleve token filter running lang.Stem for one language on
// lowercased tokens, each word's stem remembered.
type Stemmer struct {
	l     lang.Lang
	stems func() *memo.Table[string]
}

func newStemmer(l lang.Lang) Stemmer {
	return Stemmer{l: l, stems: sync.OnceValue(func() *memo.Table[string] { return memo.New[string](wordSlots) })}
}

// Filter stems every token in place.
func (s Stemmer) Filter(input analysis.TokenStream) analysis.TokenStream {
	stems := s.stems()
	for _, t := range input {
		if st := stems.GetBytes(t.Term, s.stem); st != string(t.Term) {
			t.Term = []byte(st)
		}
	}
	return input
}

func (s Stemmer) stem(word string) string { return lang.Stem(s.l, word) }

// Fold is a Bleve token filter removing diacritics with lang.Fold.
type Fold struct{}

// Filter folds every token in place; an ASCII token is left as it is.
func (Fold) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if !isASCII(t.Term) {
			t.Term = []byte(lang.Fold(string(t.Term)))
		}
	}
	return input
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func init() {
	filters := map[string]analysis.TokenFilter{FoldName: Fold{}}
	for l, name := range stemmers {
		if strings.HasPrefix(name, "quire_") { // ours, not Bleve's
			filters[name] = newStemmer(l)
		}
	}
	for name, f := range filters {
		err := registry.RegisterTokenFilter(name, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
			return f, nil
		})
		if err != nil {
			panic(err)
		}
	}
}
