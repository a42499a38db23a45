// Package filter makes package lang's stemmers and accent folding
// available to Bleve analyzers: it registers token filters for the light
// Czech stemmer, which Bleve lacks, and for lang.Fold, and names the
// stemmer filter to use for each language so that the index stems exactly
// as query translation does.
//
// A language's analyzer should run: unicode tokenizer → to_lower → the
// language's stop filter → StemName(l) → FoldName. Folding comes last
// because the stemmers read accents; Bleve's asciifolding is a character
// filter, which would fold before tokenizing, hence FoldName.
package filter

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/ar"
	"github.com/blevesearch/bleve/v2/analysis/lang/da"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fi"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/hi"
	"github.com/blevesearch/bleve/v2/analysis/lang/hu"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/pt"
	"github.com/blevesearch/bleve/v2/analysis/lang/ro"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/quire-app/quire/sidecar/lang"
)

// Registered filter names.
const (
	// CzechName is the light Czech stemmer.
	CzechName = "quire_stem_cs_light"
	// FoldName removes diacritics from tokens with lang.Fold.
	FoldName = "quire_fold"
)

// stemmers are Bleve's stemmer filters. For the languages lang.Stem
// stems, they run the same Snowball stemmer, so that the index stems
// exactly as query translation does.
var stemmers = map[lang.Lang]string{
	lang.English: en.SnowballStemmerName, lang.Italian: it.SnowballStemmerName,
	lang.Spanish: es.SnowballStemmerName, lang.German: de.SnowballStemmerName,
	lang.French: fr.SnowballStemmerName, lang.Czech: CzechName,
	lang.Dutch: nl.SnowballStemmerName, lang.Swedish: sv.SnowballStemmerName,
	lang.Danish: da.SnowballStemmerName, lang.Norwegian: no.SnowballStemmerName,
	lang.Finnish: fi.SnowballStemmerName, lang.Hungarian: hu.SnowballStemmerName,
	lang.Romanian: ro.SnowballStemmerName, lang.Russian: ru.SnowballStemmerName,
	lang.Turkish: tr.SnowballStemmerName,
	// Stemmed only in the index: no word list looks their stems up.
	lang.Portuguese: pt.LightStemmerName, lang.Arabic: ar.StemmerName, lang.Hindi: hi.StemmerName,
}

// StemName returns the Bleve token filter that stems l, or "" when l has
// no stemmer (Unknown, or a language Bleve does not stem). Put it after
// lowercasing and before any accent folding: the stemmers read accents.
func StemName(l lang.Lang) string { return stemmers[l] }

// Czech is a Bleve token filter running the light Czech stemmer on
// lowercased tokens.
type Czech struct{}

// Filter stems every token in place.
func (Czech) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		t.Term = []byte(lang.Stem(lang.Czech, string(t.Term)))
	}
	return input
}

// Fold is a Bleve token filter removing diacritics with lang.Fold.
type Fold struct{}

// Filter folds every token in place.
func (Fold) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		t.Term = []byte(lang.Fold(string(t.Term)))
	}
	return input
}

func init() {
	for name, f := range map[string]analysis.TokenFilter{CzechName: Czech{}, FoldName: Fold{}} {
		err := registry.RegisterTokenFilter(name, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
			return f, nil
		})
		if err != nil {
			panic(err)
		}
	}
}
