// Package lang owns what Quire knows about human languages: detecting the
// language of a query or a note, stop words, stemming, accent folding, and
// word-by-word query translation through bilingual word lists built from
// the FreeDict dictionaries (see dict/NOTICE).
//
// Every function here takes lowercased text whose accents are NOT folded:
// stemmers and dictionaries are keyed on real spellings ("città", "žena"),
// and folding first would merge words the stemmers tell apart. Callers that
// index folded terms should fold after stemming, with Fold.
package lang

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Lang is an ISO 639-1 language code. The zero value, Unknown, means there
// was no evidence for any language; callers pick their own default.
type Lang string

// The languages Quire detects and stems. English, Italian, Spanish and
// Czech also have bilingual word lists to and from English.
const (
	Unknown Lang = ""
	English Lang = "en"
	Italian Lang = "it"
	Spanish Lang = "es"
	Czech   Lang = "cs"
	German  Lang = "de"
	French  Lang = "fr"
)

// All lists the languages this package knows, in a fixed order.
var All = []Lang{English, Italian, Spanish, Czech, German, French}

// Parse turns a code such as "it", "IT", "it-IT" or "ita" into a Lang,
// which is how a note's frontmatter `lang` value should be read. It returns
// Unknown for codes this package does not know.
func Parse(code string) Lang {
	c := strings.ToLower(strings.TrimSpace(code))
	if i := strings.IndexAny(c, "-_"); i >= 0 {
		c = c[:i]
	}
	switch c {
	case "en", "eng", "english":
		return English
	case "it", "ita", "italian", "italiano":
		return Italian
	case "es", "spa", "spanish", "español", "espanol":
		return Spanish
	case "cs", "ces", "cze", "czech", "čeština", "cestina":
		return Czech
	case "de", "deu", "ger", "german", "deutsch":
		return German
	case "fr", "fra", "fre", "french", "français", "francais":
		return French
	}
	return Unknown
}

// Fold removes diacritics ("città" → "citta", "žluťoučký" → "zlutoucky")
// by decomposing to NFD and dropping combining marks. It does not change
// case. Letters that are not a base letter plus a mark (ß, ø, ł) are kept.
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
