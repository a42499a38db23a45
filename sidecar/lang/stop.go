package lang

import (
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis/lang/cs"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
)

// The stop lists are Bleve's own (Snowball's for en, it, es, de, fr;
// Lucene's for cs), so that the words translation drops are the words the
// BM25 analyzers drop.
var stopSources = map[Lang][]byte{
	English: en.EnglishStopWords,
	Italian: it.ItalianStopWords,
	Spanish: es.SpanishStopWords,
	Czech:   cs.CzechStopWords,
	German:  de.GermanStopWords,
	French:  fr.FrenchStopWords,
}

var (
	stopOnce sync.Once
	stops    map[Lang]map[string]bool
	// stopLangs maps a stop word to the languages that list it, for the
	// detector.
	stopLangs map[string][]Lang
)

func loadStops() {
	stops = make(map[Lang]map[string]bool, len(stopSources))
	stopLangs = make(map[string][]Lang)
	for _, l := range All {
		set := make(map[string]bool)
		for _, line := range strings.Split(string(stopSources[l]), "\n") {
			if i := strings.IndexAny(line, "|#"); i >= 0 {
				line = line[:i]
			}
			for _, w := range strings.Fields(line) {
				w = strings.ToLower(w)
				if set[w] {
					continue
				}
				set[w] = true
				stopLangs[w] = append(stopLangs[w], l)
			}
		}
		stops[l] = set
	}
}

// IsStop reports whether word, lowercased, is a stop word of l. It is
// false for every word when l is Unknown or not known to this package.
func IsStop(l Lang, word string) bool {
	stopOnce.Do(loadStops)
	return stops[l][word]
}

// StopWords returns the number of stop words of l, for tests and reports.
func StopWords(l Lang) int {
	stopOnce.Do(loadStops)
	return len(stops[l])
}
