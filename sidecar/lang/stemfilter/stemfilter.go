// Package stemfilter makes package lang's stemmers available to Bleve
// analyzers: it registers a token filter for the light Czech stemmer,
// which Bleve lacks, and names the filter to use for each language so
// that the index stems exactly as query translation does.
package stemfilter

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/quire-app/quire/sidecar/lang"
)

// CzechName is the registered name of the light Czech stemmer filter.
const CzechName = "quire_stem_cs_light"

// Name returns the Bleve token filter that stems l like lang.Stem does,
// or "" when l has no stemmer (Unknown). Put it after lowercasing and
// before any accent folding: the stemmers read accents.
func Name(l lang.Lang) string {
	switch l {
	case lang.English:
		return en.SnowballStemmerName
	case lang.Italian:
		return it.SnowballStemmerName
	case lang.Spanish:
		return es.SnowballStemmerName
	case lang.German:
		return de.SnowballStemmerName
	case lang.French:
		return fr.SnowballStemmerName
	case lang.Czech:
		return CzechName
	}
	return ""
}

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

func init() {
	err := registry.RegisterTokenFilter(CzechName, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
		return Czech{}, nil
	})
	if err != nil {
		panic(err)
	}
}
