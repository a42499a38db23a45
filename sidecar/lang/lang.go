// Package lang owns what Quire knows about human languages: detecting the
// language of a query or a note, stop words, stemming, accent folding, and
// word-by-word query translation through bilingual word lists built from
// the FreeDict dictionaries and Quire's own vocabulary (see dict/NOTICE).
//
// Every function here takes lowercased text whose accents are NOT folded:
// stemmers and dictionaries are keyed on real spellings ("città", "žena"),
// and folding first would merge words the stemmers tell apart. Callers that
// index folded terms should fold after stemming, with Fold.
package lang

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/quire-app/quire/sidecar/lang/dict"
)

// Lang is an ISO 639-1 language code. The zero value, Unknown, means there
// was no evidence for any language, or too little to tell two apart: then
// no stemmer runs and nothing is translated.
type Lang string

// The languages Quire detects. English, Italian, Spanish, Czech and German
// also have bilingual word lists to and from English; every language with
// a stemmer in Bleve is stemmed (see Stem); the others are detected by
// their script so that their notes are not filed under a language they
// are not in.
const (
	Unknown    Lang = ""
	English    Lang = "en"
	Italian    Lang = "it"
	Spanish    Lang = "es"
	Czech      Lang = "cs"
	German     Lang = "de"
	French     Lang = "fr"
	Portuguese Lang = "pt"
	Dutch      Lang = "nl"
	Swedish    Lang = "sv"
	Danish     Lang = "da"
	Norwegian  Lang = "no"
	Finnish    Lang = "fi"
	Hungarian  Lang = "hu"
	Romanian   Lang = "ro"
	Turkish    Lang = "tr"
	Polish     Lang = "pl"
	Slovak     Lang = "sk"
	Croatian   Lang = "hr"
	Catalan    Lang = "ca"
	Indonesian Lang = "id"
	Vietnamese Lang = "vi"
	Russian    Lang = "ru"
	Ukrainian  Lang = "uk"
	Bulgarian  Lang = "bg"
	Greek      Lang = "el"
	Arabic     Lang = "ar"
	Persian    Lang = "fa"
	Hebrew     Lang = "he"
	Hindi      Lang = "hi"
	Thai       Lang = "th"
	Chinese    Lang = "zh"
	Japanese   Lang = "ja"
	Korean     Lang = "ko"
	Armenian   Lang = "hy"
	Georgian   Lang = "ka"
)

// Latin lists the Latin-script languages the detector scores by their
// stop words and letters, in a fixed order: on a tie the earlier wins, so
// the languages with word lists come first.
var Latin = []Lang{English, Italian, Spanish, Czech, German, French,
	Portuguese, Dutch, Swedish, Danish, Norwegian, Finnish, Hungarian,
	Romanian, Turkish, Polish, Slovak, Croatian, Catalan, Indonesian, Vietnamese}

// All lists every language this package knows, Latin first.
var All = append(append([]Lang{}, Latin...), Russian, Ukrainian, Bulgarian, Greek,
	Arabic, Persian, Hebrew, Hindi, Thai, Chinese, Japanese, Korean, Armenian, Georgian)

// names are the spellings Parse accepts besides the code itself: ISO
// 639-2 codes and the language's English and own names.
var names = map[string]Lang{
	"eng": English, "english": English,
	"ita": Italian, "italian": Italian, "italiano": Italian,
	"spa": Spanish, "spanish": Spanish, "español": Spanish, "espanol": Spanish,
	"ces": Czech, "cze": Czech, "czech": Czech, "čeština": Czech, "cestina": Czech,
	"deu": German, "ger": German, "german": German, "deutsch": German,
	"fra": French, "fre": French, "french": French, "français": French, "francais": French,
	"por": Portuguese, "portuguese": Portuguese, "português": Portuguese,
	"nld": Dutch, "dut": Dutch, "dutch": Dutch, "nederlands": Dutch,
	"swe": Swedish, "swedish": Swedish, "svenska": Swedish,
	"dan": Danish, "danish": Danish, "dansk": Danish,
	"nor": Norwegian, "nb": Norwegian, "nn": Norwegian, "nob": Norwegian, "nno": Norwegian, "norwegian": Norwegian, "norsk": Norwegian,
	"fin": Finnish, "finnish": Finnish, "suomi": Finnish,
	"hun": Hungarian, "hungarian": Hungarian, "magyar": Hungarian,
	"ron": Romanian, "rum": Romanian, "romanian": Romanian, "română": Romanian,
	"tur": Turkish, "turkish": Turkish, "türkçe": Turkish,
	"pol": Polish, "polish": Polish, "polski": Polish,
	"slk": Slovak, "slo": Slovak, "slovak": Slovak, "slovenčina": Slovak,
	"hrv": Croatian, "croatian": Croatian, "hrvatski": Croatian,
	"cat": Catalan, "catalan": Catalan, "català": Catalan,
	"ind": Indonesian, "indonesian": Indonesian, "in": Indonesian,
	"vie": Vietnamese, "vietnamese": Vietnamese,
	"rus": Russian, "russian": Russian, "русский": Russian,
	"ukr": Ukrainian, "ukrainian": Ukrainian,
	"bul": Bulgarian, "bulgarian": Bulgarian,
	"ell": Greek, "gre": Greek, "greek": Greek,
	"ara": Arabic, "arabic": Arabic,
	"fas": Persian, "per": Persian, "persian": Persian, "farsi": Persian,
	"heb": Hebrew, "hebrew": Hebrew, "iw": Hebrew,
	"hin": Hindi, "hindi": Hindi,
	"tha": Thai, "thai": Thai,
	"zho": Chinese, "chi": Chinese, "chinese": Chinese, "中文": Chinese,
	"jpn": Japanese, "japanese": Japanese, "日本語": Japanese,
	"kor": Korean, "korean": Korean, "한국어": Korean,
	"hye": Armenian, "arm": Armenian, "armenian": Armenian,
	"kat": Georgian, "geo": Georgian, "georgian": Georgian,
}

// Parse turns a code such as "it", "IT", "it-IT" or "ita" into a Lang,
// which is how a note's frontmatter `lang` value should be read. It returns
// Unknown for codes this package does not know.
func Parse(code string) Lang {
	c := strings.ToLower(strings.TrimSpace(code))
	if i := strings.IndexAny(c, "-_"); i >= 0 {
		c = c[:i]
	}
	if c == "" {
		return Unknown
	}
	for _, l := range All {
		if string(l) == c {
			return l
		}
	}
	return names[c]
}

// CapitalisesNouns reports whether l writes every noun with a capital
// letter (German), so that a capital says nothing of a name.
func CapitalisesNouns(l Lang) bool { return l == German }

// Fold removes diacritics ("città" → "citta", "žluťoučký" → "zlutoucky")
// by decomposing to NFD and dropping combining marks. It does not change
// case. Letters that are not a base letter plus a mark (ß, ø, ł) are kept.
// Words made of Latin letters alone (ASCII, Latin-1 and Latin Extended-A
// and -B) are folded letter by letter from a table that the slow path
// filled in, which gives the same result: without combining marks in the
// word, NFC has nothing to recompose. Building the index of unaccented
// keys of a word list, as was done before dict.LookupFolded walked the
// keys instead, folded every accented key, and normalising took half of
// a one-shot search's CPU time on a vault that needed it.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	foldOnce.Do(initFoldTable)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteByte(byte(r))
		case r >= foldLo && r < foldHi:
			b.WriteString(foldTable[r-foldLo])
		default:
			return foldSlow(s)
		}
	}
	return b.String()
}

// folding is Fold as word lists look keys up by it (dict.LookupFolded).
var folding = sync.OnceValue(func() *dict.Folding { return dict.NewFolding(Fold) })

// The runes Fold folds by table: Latin-1 Supplement's letters to Latin
// Extended-B.
const foldLo, foldHi = 0xC0, 0x250

var (
	foldOnce  sync.Once
	foldTable [foldHi - foldLo]string
)

func initFoldTable() {
	for r := rune(foldLo); r < foldHi; r++ {
		foldTable[r-foldLo] = foldSlow(string(r))
	}
}

func foldSlow(s string) string {
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

// Words splits text into lowercased words: runs of letters, digits and
// combining marks. Apostrophes and hyphens split words, so Italian
// "dell'acqua" gives "dell", "acqua" (and "dell" is an Italian stop word).
func Words(text string) []string {
	return appendWords(nil, text, 0)
}

// appendWords appends the words of text to dst, stopping after max words
// when max > 0.
func appendWords(dst []string, text string, max int) []string {
	start := -1
	n := 0
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			dst = append(dst, strings.ToLower(text[start:i]))
			start = -1
			n++
			if max > 0 && n >= max {
				return dst
			}
		}
	}
	if start >= 0 {
		dst = append(dst, strings.ToLower(text[start:]))
	}
	return dst
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}
