package lang

import (
	"bytes"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis/lang/ar"
	"github.com/blevesearch/bleve/v2/analysis/lang/bg"
	"github.com/blevesearch/bleve/v2/analysis/lang/ca"
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
	"github.com/blevesearch/bleve/v2/analysis/lang/hy"
	"github.com/blevesearch/bleve/v2/analysis/lang/id"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/pt"
	"github.com/blevesearch/bleve/v2/analysis/lang/ro"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/quire-app/quire/sidecar/lang/hrstop"
	"github.com/quire-app/quire/sidecar/lang/plstop"
)

// The stop lists are Bleve's own (Snowball's for most languages, Lucene's
// for cs), so that the words translation drops are the words the BM25
// analyzers drop. Bleve has none for Slovak and Vietnamese: the short
// lists below, written for Quire, give the detector those languages'
// commonest function words.
var stopSources = map[Lang][]byte{
	English:    en.EnglishStopWords,
	Italian:    it.ItalianStopWords,
	Spanish:    es.SpanishStopWords,
	Czech:      cs.CzechStopWords,
	German:     de.GermanStopWords,
	French:     fr.FrenchStopWords,
	Portuguese: pt.PortugueseStopWords,
	Dutch:      nl.DutchStopWords,
	Swedish:    sv.SwedishStopWords,
	Danish:     da.DanishStopWords,
	Norwegian:  no.NorwegianStopWords,
	Finnish:    fi.FinnishStopWords,
	Hungarian:  hu.HungarianStopWords,
	Romanian:   ro.RomanianStopWords,
	Turkish:    tr.TurkishStopWords,
	Polish:     plstop.StopWords,
	Croatian:   hrstop.StopWords,
	Catalan:    ca.CatalanStopWords,
	Indonesian: id.IndonesianStopWords,
	Russian:    ru.RussianStopWords,
	Bulgarian:  bg.BulgarianStopWords,
	Greek:      el.GreekStopWords,
	Arabic:     ar.ArabicStopWords,
	Persian:    fa.PersianStopWords,
	Hindi:      hi.HindiStopWords,
	Armenian:   hy.ArmenianStopWords,
	Slovak: []byte(`a aj ak ako ale alebo ani áno ba bez bol bola boli bolo by byť cez či čo do ešte
		ho i ich ja je jej ju k kam kde keď kto ku len ma mal mala mi mne my na nad nám nás
		nie niečo nič o od on ona oni ono po pod pre pred pri s sa si sme so som ste sú
		tak takže tam to toho tom tu už v vo však všetko z za že nich jeho ktorý ktorá ktoré ktorí môže`),
	Vietnamese: []byte(`và của là có được cho không những các một trong này với để đã người
		khi từ thì như đến nhiều ra vào cũng lại mà sẽ rất nhưng hay hoặc bạn chúng tôi`),
}

var (
	stopOnce sync.Once
	// stopLangs maps a stop word to the languages that list it: the
	// detector's evidence and IsStop's set, in one map (building a map
	// per language as well cost a one-shot search a tenth of its CPU).
	stopLangs map[string][]Lang
)

func loadStops() {
	stopLangs = make(map[string][]Lang, 8192)
	for _, l := range All {
		src := stopSources[l]
		for len(src) > 0 {
			line := src
			if i := bytes.IndexByte(src, '\n'); i >= 0 {
				line, src = src[:i], src[i+1:]
			} else {
				src = nil
			}
			if i := bytes.IndexAny(line, "|#"); i >= 0 {
				line = line[:i]
			}
			for _, f := range bytes.Fields(line) {
				w := strings.ToLower(string(f))
				if ls := stopLangs[w]; len(ls) == 0 || ls[len(ls)-1] != l {
					stopLangs[w] = append(ls, l)
				}
			}
		}
	}
}

// IsStop reports whether word, lowercased, is a stop word of l. It is
// false for every word when l is Unknown or not known to this package.
func IsStop(l Lang, word string) bool {
	stopOnce.Do(loadStops)
	for _, sl := range stopLangs[word] {
		if sl == l {
			return true
		}
	}
	return false
}
