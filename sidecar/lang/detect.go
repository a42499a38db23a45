package lang

import (
	"strings"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang/dict"
)

// maxDetectWords caps the words the detector reads: a note's first few
// thousand words say its language as well as the whole note does.
const maxDetectWords = 3000

// minEvidence is the score the best language needs before Detect names it;
// below it (a bare name, a number, a lone "a") the caller's default is a
// better guess than ours.
const minEvidence = 0.75

// Detect returns the language of text, or Unknown when the text gives no
// evidence for any language. It works on a three-word query as on a long
// note; see Detection for how sure it is.
func Detect(text string) Lang {
	l, _ := Detection(text)
	return l
}

// Detection returns the language of text and a confidence in [0, 1]: the
// best language's share of all the evidence found. Unknown comes with 0.
//
// The evidence is stop words (a word listed by k languages counts 1/k for
// each) and letters or spellings one language uses and the others don't:
// ¿ ¡ ñ for Spanish, ě ř ů and the háček letters for Czech, grave accents
// and elided articles (l', dell', un') for Italian, 's and n't for English.
// When that is not enough (a query of content words only), the words are
// looked up in the bilingual word lists, which are loaded for it.
// When two languages tie, the first in All wins, so German and French need
// evidence of their own to beat the languages Quire translates.
func Detection(text string) (Lang, float64) {
	var score [6]float64
	stopOnce.Do(loadStops)

	words := appendWords(make([]string, 0, 16), text, maxDetectWords)
	for _, w := range words {
		ls := stopLangs[w]
		for _, l := range ls {
			score[langIndex(l)] += 1 / float64(len(ls))
		}
		if len(ls) == 0 {
			suffixCues(w, &score)
		}
	}

	// Letter cues: cap each so that one long Czech name in an English
	// note does not outweigh the note's stop words.
	var letters [6]float64
	scanned := 0
	for _, r := range text {
		if scanned++; scanned > maxDetectWords*8 {
			break
		}
		switch r {
		case '¿', '¡', 'ñ', 'Ñ':
			letters[2] += 1
		case 'ě', 'ř', 'ů', 'Ě', 'Ř', 'Ů':
			letters[3] += 1
		case 'š', 'č', 'ž', 'ť', 'ď', 'ň', 'Š', 'Č', 'Ž':
			letters[3] += 0.5
		case 'ò', 'ì':
			letters[1] += 1
		case 'à', 'è', 'ù':
			letters[1] += 0.5
			letters[5] += 0.25
		case 'ä', 'ö', 'ß', 'Ä', 'Ö':
			letters[4] += 1
		case 'ç', 'ê', 'â', 'î', 'ô', 'û', 'ë', 'ï', 'œ':
			letters[5] += 1
		case 'á', 'í', 'ó', 'ú':
			letters[2] += 0.25
			letters[3] += 0.25
		case 'ý':
			letters[3] += 0.5
		}
	}
	elisionCues(text, &letters)
	limit := 2 + float64(len(words))/10
	for i := range letters {
		score[i] += min(letters[i], limit)
	}

	best := argmax(score[:])
	if score[best] < minEvidence {
		// Too little to go on, as in a query of content words only
		// ("formaggio stagionato"): ask the word lists which language
		// knows the words.
		vocabularyCues(words, &score)
		best = argmax(score[:])
	}
	if score[best] < minEvidence {
		return Unknown, 0
	}
	total := 0.0
	for _, s := range score {
		total += s
	}
	return All[best], score[best] / total
}

func argmax(xs []float64) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// vocabularyWeight is what a content word found in only one language's
// word list is worth next to a stop word's 1: enough, alone, to name the
// language of a one-word query ("queso").
const vocabularyWeight = 0.75

// vocabularies are the word lists whose keys stand for a language's
// vocabulary: English is read from the largest list it heads.
var vocabularies = []struct {
	l        Lang
	from, to string
}{
	{English, "en", "cs"}, {Italian, "it", "en"}, {Spanish, "es", "en"}, {Czech, "cs", "en"},
}

// vocabularyCues scores each word by the word lists that have it as a
// headword, shared among them as stop words are. It reads only the first
// words of a long text: it runs when the text gave almost no evidence.
func vocabularyCues(words []string, score *[6]float64) {
	if len(words) > 64 {
		words = words[:64]
	}
	found := make([]float64, len(vocabularies))
	for _, w := range words {
		if utf8.RuneCountInString(w) < 3 {
			continue
		}
		sum := 0.0
		for i, v := range vocabularies {
			found[i] = 0
			t, err := dict.Load(v.from, v.to)
			if err != nil {
				continue
			}
			if t.Lookup(w) != nil {
				found[i] = 1
			} else if st := Stem(v.l, w); utf8.RuneCountInString(st) >= minStem(v.l) && t.Lookup(dict.StemPrefix+st) != nil {
				// An inflected form: weaker, stems are shared more.
				found[i] = 0.5
			}
			sum += found[i]
		}
		for i, v := range vocabularies {
			if found[i] > 0 {
				score[langIndex(v.l)] += vocabularyWeight * found[i] / sum
			}
		}
	}
}

// langIndex is l's position in All.
func langIndex(l Lang) int {
	for i, a := range All {
		if a == l {
			return i
		}
	}
	return -1
}

// Elided forms before an apostrophe, and English clitics after one.
var (
	italianElisions = map[string]bool{
		"dell": true, "nell": true, "all": true, "dall": true, "sull": true,
		"un": true, "quell": true, "quest": true, "c": true, "po": true,
		"bell": true, "sant": true, "tutt": true, "coll": true, "gl": true,
		"anch": true, "com": true, "dov": true, "cos": true, "nessun": true,
	}
	frenchElisions = map[string]bool{
		"qu": true, "j": true, "n": true, "jusqu": true, "lorsqu": true,
		"puisqu": true, "aujourd": true, "d": true, "s": true,
	}
	englishClitics = map[string]bool{
		"s": true, "t": true, "re": true, "ll": true, "ve": true, "m": true, "d": true,
	}
)

// elisionCues scores words joined by an apostrophe: "dell'acqua" is
// Italian, "qu'il" French, "it's" and "don't" English; a bare "l'" is
// Italian or French.
func elisionCues(text string, letters *[6]float64) {
	n := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r != '\'' && r != '’' {
			i += size
			continue
		}
		if n++; n > maxDetectWords {
			return
		}
		before := strings.ToLower(lastWord(text[:i]))
		after := strings.ToLower(firstWord(text[i+size:]))
		i += size
		if before == "" || after == "" {
			continue
		}
		switch {
		case before == "l":
			letters[1] += 0.5
			letters[5] += 0.5
		case italianElisions[before]:
			letters[1] += 1
		case frenchElisions[before]:
			letters[5] += 1
		case englishClitics[after] || (after == "t" && strings.HasSuffix(before, "n")):
			letters[0] += 1
		}
	}
}

func lastWord(s string) string {
	j := len(s)
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		if !isWordRune(r) {
			break
		}
		j -= size
	}
	return s[j:]
}

func firstWord(s string) string {
	j := 0
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !isWordRune(r) {
			break
		}
		j += size
	}
	return s[:j]
}

// suffixes are derivational and case endings typical of one language (or
// shared by two), weak evidence for queries made only of content words,
// such as "historie jízdního kola".
var suffixes = []struct {
	suffix string
	langs  []Lang
}{
	{"ního", []Lang{Czech}}, {"ého", []Lang{Czech}}, {"ých", []Lang{Czech}},
	{"ými", []Lang{Czech}}, {"ími", []Lang{Czech}}, {"ení", []Lang{Czech}},
	{"ání", []Lang{Czech}}, {"osti", []Lang{Czech}}, {"ové", []Lang{Czech}},
	{"zione", []Lang{Italian}}, {"zioni", []Lang{Italian}}, {"ità", []Lang{Italian}},
	{"ggio", []Lang{Italian}}, {"zza", []Lang{Italian}}, {"mente", []Lang{Italian, Spanish}},
	{"ción", []Lang{Spanish}}, {"ciones", []Lang{Spanish}}, {"dad", []Lang{Spanish}},
	{"dades", []Lang{Spanish}}, {"ness", []Lang{English}}, {"ing", []Lang{English}},
	{"ings", []Lang{English}}, {"tion", []Lang{English, French}}, {"tions", []Lang{English, French}},
	{"ung", []Lang{German}}, {"ungen", []Lang{German}}, {"keit", []Lang{German}},
	{"heit", []Lang{German}}, {"schaft", []Lang{German}}, {"eaux", []Lang{French}},
}

// suffixWeight is what a content word's ending is worth next to a stop
// word's 1.
const suffixWeight = 0.5

func suffixCues(w string, score *[6]float64) {
	if utf8.RuneCountInString(w) < 5 {
		return
	}
	for _, s := range suffixes {
		if strings.HasSuffix(w, s.suffix) {
			for _, l := range s.langs {
				score[langIndex(l)] += suffixWeight / float64(len(s.langs))
			}
			return
		}
	}
}
