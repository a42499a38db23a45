package bm25

import (
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/char/regexp"
	"github.com/blevesearch/bleve/v2/analysis/lang/cs"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/lang/filter"
)

// Languages with their own analyzer; any other note uses the generic one.
var Languages = []string{"en", "it", "es", "cs"}

const generic = "xx"

const colonName = "quire_colon"

func analyzerName(lang string) string { return "quire_" + lang }

// addAnalyzers registers one analyzer per language: unicode words,
// lowercase, the language's elision/possessive and stop filters, its
// stemmer (Snowball; a light stemmer for Czech), then accent folding, so
// "caffè" and "caffe" meet while the stemmers still see real words.
func addAnalyzers(m *mapping.IndexMappingImpl) error {
	chains := map[string][]string{
		"en":    {lowercase.Name, en.PossessiveName, en.StopName, filter.StemName(lang.English), filter.FoldName},
		"it":    {lowercase.Name, it.ElisionName, it.StopName, filter.StemName(lang.Italian), filter.FoldName},
		"es":    {lowercase.Name, es.StopName, filter.StemName(lang.Spanish), filter.FoldName},
		"cs":    {lowercase.Name, cs.StopName, filter.StemName(lang.Czech), filter.FoldName},
		generic: {lowercase.Name, filter.FoldName},
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
