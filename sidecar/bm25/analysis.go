package bm25

import (
	"github.com/blevesearch/bleve/v2/analysis"
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/char/asciifolding"
	"github.com/blevesearch/bleve/v2/analysis/char/regexp"
	"github.com/blevesearch/bleve/v2/analysis/lang/cs"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
)

// Languages with their own analyzer; any other note uses the generic one.
// Czech is folded and stop-filtered but not stemmed.
var Languages = []string{"en", "it", "es", "cs"}

const generic = "xx"

// foldName is a token filter that folds accents after stemming, so that
// "caffè" and "caffe" meet while the stemmers still see real words.
const foldName = "quire_fold"

type foldFilter struct{ f *asciifolding.AsciiFoldingFilter }

func (ff foldFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		t.Term = ff.f.Filter(t.Term)
	}
	return in
}

func init() {
	_ = registry.RegisterTokenFilter(foldName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return foldFilter{asciifolding.New()}, nil
	})
}

const colonName = "quire_colon"

func analyzerName(lang string) string { return "quire_" + lang }

// addAnalyzers registers one analyzer per language: unicode words,
// lowercase, the language's elision/possessive and stop filters, its
// Snowball stemmer, then accent folding.
func addAnalyzers(m *mapping.IndexMappingImpl) error {
	chains := map[string][]string{
		"en":    {lowercase.Name, en.PossessiveName, en.StopName, en.SnowballStemmerName, foldName},
		"it":    {lowercase.Name, it.ElisionName, it.StopName, it.SnowballStemmerName, foldName},
		"es":    {lowercase.Name, es.StopName, es.SnowballStemmerName, foldName},
		"cs":    {lowercase.Name, cs.StopName, foldName},
		generic: {lowercase.Name, foldName},
	}
	// Unicode word rules keep "title:foo" as one word (the colon joins
	// letters in Swedish); in notes and queries it separates words.
	err := m.AddCustomCharFilter(colonName, map[string]any{
		"type":    regexp.Name,
		"regexp":  `:`,
		"replace": " ",
	})
	if err != nil {
		return err
	}
	for lang, filters := range chains {
		err := m.AddCustomAnalyzer(analyzerName(lang), map[string]any{
			"type":          "custom",
			"char_filters":  []string{colonName},
			"tokenizer":     unicode.Name,
			"token_filters": filters,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// fieldLang maps a note's language to the analyzer family used for it.
func fieldLang(lang string) string {
	for _, l := range Languages {
		if l == lang {
			return l
		}
	}
	return generic
}
