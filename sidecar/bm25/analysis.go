package bm25

import (
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/char/regexp"
	"github.com/blevesearch/bleve/v2/analysis/lang/ar"
	"github.com/blevesearch/bleve/v2/analysis/lang/bg"
	"github.com/blevesearch/bleve/v2/analysis/lang/ca"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/cs"
	"github.com/blevesearch/bleve/v2/analysis/lang/da"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/el"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fa"
	"github.com/blevesearch/bleve/v2/analysis/lang/fi"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/hi"
	"github.com/blevesearch/bleve/v2/analysis/lang/hu"
	"github.com/blevesearch/bleve/v2/analysis/lang/id"
	"github.com/blevesearch/bleve/v2/analysis/lang/in"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/pt"
	"github.com/blevesearch/bleve/v2/analysis/lang/ro"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/bleve/v2/analysis/token/apostrophe"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/lang/filter"
	"github.com/quire-app/quire/sidecar/lang/hrstop"
	"github.com/quire-app/quire/sidecar/lang/plstop"
)

// families maps a note language to its analyzer's token filters, after
// the unicode tokenizer. Each family has its own fields (body_de…): a
// language's stemmer never sees another language's words. The chains are
// Bleve's own analyzers for those languages with accent folding added
// last, so "caffè" and "caffe" meet while the stemmers still see real
// words; languages that Bleve stops but does not stem are stopped and
// folded; Chinese, Japanese and Korean share Bleve's CJK bigrams. Polish
// and Croatian are stopped and folded but not stemmed: Bleve builds their
// stemmers (Stempel's tables, Croatian's suffix rules) each time an index
// opens, which tripled the CPU time of a one-shot search (100 → 260 ms).
// Languages missing here (Hebrew, Thai…) use the generic analyzer.
var families = map[string][]string{
	"en":    {lowercase.Name, en.PossessiveName, en.StopName, filter.StemName(lang.English), filter.FoldName},
	"it":    {lowercase.Name, it.ElisionName, it.StopName, filter.StemName(lang.Italian), filter.FoldName},
	"es":    {lowercase.Name, es.StopName, filter.StemName(lang.Spanish), filter.FoldName},
	"cs":    {lowercase.Name, cs.StopName, filter.StemName(lang.Czech), filter.FoldName},
	"de":    {lowercase.Name, de.StopName, filter.StemName(lang.German), filter.FoldName},
	"fr":    {lowercase.Name, fr.ElisionName, fr.StopName, filter.StemName(lang.French), filter.FoldName},
	"pt":    {lowercase.Name, pt.StopName, filter.StemName(lang.Portuguese), filter.FoldName},
	"nl":    {lowercase.Name, nl.StopName, filter.StemName(lang.Dutch), filter.FoldName},
	"sv":    {lowercase.Name, sv.StopName, filter.StemName(lang.Swedish), filter.FoldName},
	"da":    {lowercase.Name, da.StopName, filter.StemName(lang.Danish), filter.FoldName},
	"no":    {lowercase.Name, no.StopName, filter.StemName(lang.Norwegian), filter.FoldName},
	"fi":    {lowercase.Name, fi.StopName, filter.StemName(lang.Finnish), filter.FoldName},
	"hu":    {lowercase.Name, hu.StopName, filter.StemName(lang.Hungarian), filter.FoldName},
	"ro":    {lowercase.Name, ro.StopName, filter.StemName(lang.Romanian), filter.FoldName},
	"tr":    {apostrophe.Name, lowercase.Name, tr.StopName, filter.StemName(lang.Turkish), filter.FoldName},
	"pl":    {lowercase.Name, plstop.StopName, filter.FoldName},
	"hr":    {lowercase.Name, hrstop.StopName, filter.FoldName},
	"ca":    {lowercase.Name, ca.ElisionName, ca.StopName, filter.FoldName},
	"id":    {lowercase.Name, id.StopName, filter.FoldName},
	"ru":    {lowercase.Name, ru.StopName, filter.StemName(lang.Russian)},
	"bg":    {lowercase.Name, bg.StopName},
	"el":    {lowercase.Name, el.StopName},
	"ar":    {lowercase.Name, ar.StopName, ar.NormalizeName, filter.StemName(lang.Arabic)},
	"fa":    {ar.NormalizeName, fa.NormalizeName, lowercase.Name, fa.StopName},
	"hi":    {lowercase.Name, in.NormalizeName, hi.NormalizeName, hi.StopName, filter.StemName(lang.Hindi)},
	"cjk":   {cjk.WidthName, lowercase.Name, cjk.BigramName},
	generic: {lowercase.Name, filter.FoldName},
}

// familyOf maps languages that share an analyzer to its family.
var familyOf = map[string]string{"zh": "cjk", "ja": "cjk", "ko": "cjk"}

// families lists the analyzer families in a fixed order, generic last.
var familyNames = func() []string {
	out := make([]string, 0, len(families))
	for _, l := range lang.All {
		if _, ok := families[string(l)]; ok {
			out = append(out, string(l))
		}
	}
	return append(out, "cjk", generic)
}()

const generic = "xx"

const colonName = "quire_colon"

func analyzerName(family string) string { return "quire_" + family }

// addAnalyzers registers one analyzer per family.
func addAnalyzers(m *mapping.IndexMappingImpl) error {
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
	for family, filters := range families {
		err := m.AddCustomAnalyzer(analyzerName(family), map[string]any{
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
func fieldLang(l string) string {
	if f, ok := familyOf[l]; ok {
		return f
	}
	if _, ok := families[l]; ok {
		return l
	}
	return generic
}
