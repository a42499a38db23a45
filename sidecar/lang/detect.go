package lang

import (
	"strings"
	"unicode"
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
// evidence for any language or too little to tell two apart. It works on
// a three-word query as on a long note; see Detection for how sure it is.
func Detect(text string) Lang {
	l, _ := Detection(text)
	return l
}

// shortText is the most words a text may have for its content words to be
// looked up in the word lists whatever its stop words say: a query's
// content words say as much as its one or two stop words.
const shortText = 12

// margin is how far ahead of the runner-up the best language must be:
// below it the text is as much one language as another, and Unknown
// (no stemmer, no translation) does less harm than the wrong stemmer and
// the wrong word list.
const margin = 1.25

// Detection returns the language of text and a confidence in [0, 1]: the
// best language's share of all the evidence found. Unknown comes with 0.
//
// A text mostly in a script other than Latin is named by its script
// (Cyrillic, Greek, Arabic, Hebrew, Devanagari, Thai, Han, kana, Hangul
// and others; a few letters tell Ukrainian from Russian, Persian from
// Arabic, Japanese from Chinese). A Latin text is scored on stop words (a
// word listed by k languages counts 1/k for each) and on letters or
// spellings one language uses and the others don't: ¿ ¡ ñ for Spanish,
// ě ř ů for Czech, ł ą ę for Polish, ő ű for Hungarian, ã õ for
// Portuguese, grave accents and elided articles (l', dell', un') for
// Italian, 's and n't for English. When that is not enough (a query of
// content words only), the words are looked up in the bilingual word
// lists. A Latin text with too little evidence, or evidence split between
// two languages, is Unknown.
func Detection(text string) (Lang, float64) {
	if l, ok := scriptLang(text); ok {
		return l, 1
	}
	score := make([]float64, len(Latin))
	stopOnce.Do(loadStops)

	words := appendWords(make([]string, 0, 16), text, maxDetectWords)
	for _, w := range words {
		ls := latinStops(w)
		for _, l := range ls {
			score[langIndex(l)] += 1 / float64(len(ls))
		}
		if len(ls) == 0 {
			suffixCues(w, score)
		}
	}

	// Letter cues: cap each so that one long Czech name in an English
	// note does not outweigh the note's stop words.
	letters := make([]float64, len(Latin))
	scanned := 0
	for _, r := range text {
		if scanned++; scanned > maxDetectWords*8 {
			break
		}
		if cues, ok := letterCues[r]; ok {
			for _, c := range cues {
				letters[langIndex(c.l)] += c.w
			}
		} else if r >= 0x1EA0 && r <= 0x1EF9 {
			// Latin Extended Additional: Vietnamese tone marks on vowels.
			letters[langIndex(Vietnamese)] += 1
		}
	}
	elisionCues(text, letters)
	limit := 2 + float64(len(words))/10
	for i := range letters {
		score[i] += min(letters[i], limit)
	}

	best, second := top2(score)
	if len(words) <= shortText || score[best] < minEvidence || score[best] < margin*score[second] {
		// Too little to go on, as in a query of content words only
		// ("formaggio stagionato"), two languages alike ("tvrdý sýr"
		// has Czech and Slovak letters), or a query so short that one
		// stop word would decide it ("ob" is German, "ob publish
		// --dry-run" is not): ask the word lists which language knows
		// the words.
		vocabularyCues(words, score)
		best, second = top2(score)
	}
	if score[best] < minEvidence || score[best] < margin*score[second] {
		return Unknown, 0
	}
	total := 0.0
	for _, s := range score {
		total += s
	}
	return Latin[best], score[best] / total
}

// latinStops returns the Latin-script languages that list w as a stop
// word.
func latinStops(w string) []Lang {
	ls := stopLangs[w]
	for _, l := range ls {
		if langIndex(l) < 0 {
			out := make([]Lang, 0, len(ls))
			for _, l := range ls {
				if langIndex(l) >= 0 {
					out = append(out, l)
				}
			}
			return out
		}
	}
	return ls
}

// top2 returns the indexes of the highest and second highest scores; on a
// tie the earlier index is the higher.
func top2(xs []float64) (int, int) {
	best := argmax(xs)
	second := -1
	for i, x := range xs {
		if i != best && (second < 0 || x > xs[second]) {
			second = i
		}
	}
	return best, second
}

type cue struct {
	l Lang
	w float64
}

// letterCues are the letters that point to one Latin-script language or a
// few, with what each is worth next to a stop word's 1.
var letterCues = func() map[rune][]cue {
	m := map[rune][]cue{}
	add := func(letters string, cues ...cue) {
		for _, r := range letters {
			m[r] = append(m[r], cues...)
		}
	}
	add("¿¡ñÑ", cue{Spanish, 1})
	add("ěřůĚŘŮ", cue{Czech, 1})
	add("ťďňŤĎŇ", cue{Czech, 0.4}, cue{Slovak, 0.4})
	add("šžŠŽ", cue{Czech, 0.3}, cue{Slovak, 0.3}, cue{Croatian, 0.3})
	add("čČ", cue{Czech, 0.3}, cue{Slovak, 0.3}, cue{Croatian, 0.3})
	add("ľĺŕôĽĹŔÔ", cue{Slovak, 1})
	add("ćđĆĐ", cue{Croatian, 0.5}, cue{Polish, 0.25})
	add("łąęśźżŁĄĘŚŹŻ", cue{Polish, 1})
	add("ńŃ", cue{Polish, 0.5})
	add("őűŐŰ", cue{Hungarian, 1})
	add("ãõÃÕ", cue{Portuguese, 1})
	add("ăĂ", cue{Romanian, 1})
	add("șțȘȚ", cue{Romanian, 1})
	add("ğıİĞ", cue{Turkish, 1})
	add("şŞ", cue{Turkish, 0.5}, cue{Romanian, 0.5})
	add("åÅ", cue{Swedish, 0.4}, cue{Norwegian, 0.3}, cue{Danish, 0.3})
	add("æøÆØ", cue{Danish, 0.5}, cue{Norwegian, 0.5})
	add("ßẞ", cue{German, 1})
	add("äÄ", cue{German, 0.4}, cue{Swedish, 0.3}, cue{Finnish, 0.3}, cue{Slovak, 0.3})
	add("öÖ", cue{German, 0.3}, cue{Swedish, 0.2}, cue{Finnish, 0.2}, cue{Hungarian, 0.2}, cue{Turkish, 0.1})
	add("üÜ", cue{German, 0.5}, cue{Hungarian, 0.2}, cue{Turkish, 0.3})
	add("òìÒÌ", cue{Italian, 1})
	add("àèùÀÈÙ", cue{Italian, 0.5}, cue{French, 0.25})
	add("çÇ", cue{French, 0.4}, cue{Portuguese, 0.3}, cue{Catalan, 0.3})
	add("êâîôûëïœ", cue{French, 1})
	add("áíóúÁÍÓÚ", cue{Spanish, 0.2}, cue{Czech, 0.2}, cue{Slovak, 0.2}, cue{Portuguese, 0.1}, cue{Hungarian, 0.1})
	add("ýÝ", cue{Czech, 0.4}, cue{Slovak, 0.4})
	add("éÉ", cue{French, 0.1}, cue{Hungarian, 0.05})
	add("ơưđƠƯĐ", cue{Vietnamese, 1})
	return m
}()

// cjkWeight is how many Latin letters one CJK letter counts for.
const cjkWeight = 3

// scriptLang names the language of a text written mostly in a script
// other than Latin. It reads up to maxDetectWords*8 letters and reports
// false when Latin letters are at least half of them.
func scriptLang(text string) (Lang, bool) {
	var latin, other, han, kana, hangul, cyr, arabic int
	var ukr, persian int
	counts := map[Lang]int{}
	n := 0
	for _, r := range text {
		if !unicode.IsLetter(r) {
			continue
		}
		if n++; n > maxDetectWords*8 {
			break
		}
		switch {
		case r < 0x250 || (r >= 0x1E00 && r <= 0x1EFF):
			latin++
			continue
		// A Han, kana or Hangul letter is a word or a syllable, worth
		// several Latin letters: "Obsidian の同期設定" is Japanese.
		case unicode.Is(unicode.Han, r):
			han++
			other += cjkWeight - 1
		case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			kana++
			other += cjkWeight - 1
		case unicode.Is(unicode.Hangul, r):
			hangul++
			other += cjkWeight - 1
		case unicode.Is(unicode.Cyrillic, r):
			cyr++
			switch r {
			case 'і', 'ї', 'є', 'ґ', 'І', 'Ї', 'Є', 'Ґ':
				ukr++
			}
		case unicode.Is(unicode.Arabic, r):
			arabic++
			switch r {
			case 'پ', 'چ', 'ژ', 'گ', 'ی', 'ک':
				persian++
			}
		case unicode.Is(unicode.Greek, r):
			counts[Greek]++
		case unicode.Is(unicode.Hebrew, r):
			counts[Hebrew]++
		case unicode.Is(unicode.Devanagari, r):
			counts[Hindi]++
		case unicode.Is(unicode.Thai, r):
			counts[Thai]++
		case unicode.Is(unicode.Armenian, r):
			counts[Armenian]++
		case unicode.Is(unicode.Georgian, r):
			counts[Georgian]++
		}
		other++
	}
	if other == 0 || latin >= other {
		return Unknown, false
	}
	switch {
	case (han+kana+hangul)*cjkWeight >= other/2:
		switch {
		case hangul > 0 && hangul >= kana:
			return Korean, true
		case kana > 0:
			return Japanese, true
		}
		return Chinese, true
	case cyr >= other/2:
		if ukr > 0 {
			return Ukrainian, true
		}
		return Russian, true
	case arabic >= other/2:
		if persian > 0 {
			return Persian, true
		}
		return Arabic, true
	}
	best, bestN := Unknown, 0
	for l, c := range counts {
		if c > bestN || (c == bestN && l < best) {
			best, bestN = l, c
		}
	}
	// A script this package does not name (Tamil, Ethiopic…) is still not
	// Latin: Unknown, and no Latin stemmer.
	return best, true
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
	{German, "de", "en"},
}

// vocabularyCues scores each word by the word lists that have it as a
// headword, shared among them as stop words are. It reads only the first
// words of a long text: it runs when the text gave almost no evidence.
func vocabularyCues(words []string, score []float64) {
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

// langIndex is l's position in Latin, or -1.
func langIndex(l Lang) int {
	for i, a := range Latin {
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
func elisionCues(text string, letters []float64) {
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
			letters[langIndex(Italian)] += 0.5
			letters[langIndex(French)] += 0.5
		case italianElisions[before]:
			letters[langIndex(Italian)] += 1
		case frenchElisions[before]:
			letters[langIndex(French)] += 1
		case englishClitics[after] || (after == "t" && strings.HasSuffix(before, "n")):
			letters[langIndex(English)] += 1
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
	{"heit", []Lang{German}}, {"schaft", []Lang{German}}, {"iert", []Lang{German}},
	{"ieren", []Lang{German}}, {"eaux", []Lang{French}}, {"ção", []Lang{Portuguese}},
	{"ções", []Lang{Portuguese}}, {"ijk", []Lang{Dutch}}, {"lijk", []Lang{Dutch}},
}

// suffixWeight is what a content word's ending is worth next to a stop
// word's 1.
const suffixWeight = 0.5

func suffixCues(w string, score []float64) {
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
