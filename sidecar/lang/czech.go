package lang

import "strings"

// stemCzech is a light stemmer for Czech after Dolamic & Savoy, "Indexing
// and stemming approaches for the Czech language" (Information Processing
// and Management, 2009): it strips case endings, then the possessive
// suffixes -ov and -in, and undoes the palatalisation that some endings
// cause (ruce → ruk like ruka, knize → knih like kniha). It leaves
// derivational suffixes alone, which the paper found to cost precision.
// Lengths in the rules count letters, not bytes.
//
// One derivational step is taken: a verb's infinitive and its verbal noun
// meet (zálohovat and zálohování → záloh, nastavit and nastavení →
// nastav), as a question is often asked with the verb ("jak zálohovat")
// of a page titled with the noun ("Zálohování").
func stemCzech(word string) string {
	r := []rune(word)
	r = czechCase(r)
	r = czechVerbal(r)
	r = czechPossessive(r)
	return string(r)
}

// czechVerbal strips what is left of an infinitive or a verbal noun once
// the case ending is gone: -ován (-ování), -án (-ání), -en/-ěn (-ení,
// -ění), and the infinitives -it, -et, -ět (-at and -ovat already lose
// -at as a case ending). The stem must keep three letters.
func czechVerbal(r []rune) []rune {
	n := len(r)
	if n > 6 && hasSuffix(r, "ován") {
		return r[:n-4]
	}
	if n > 5 {
		switch suffix(r, 2) {
		case "án", "en", "ěn", "it", "et", "ět":
			return r[:n-2]
		}
	}
	return r
}

// czechCase strips one case ending, the longest the word is long enough
// to lose.
func czechCase(r []rune) []rune {
	n := len(r)
	if n > 7 && hasSuffix(r, "atech") {
		return r[:n-5]
	}
	if n > 6 {
		switch {
		case hasSuffix(r, "ětem"):
			return czechPalatalise(r[:n-3])
		case hasSuffix(r, "atům"):
			return r[:n-4]
		}
	}
	if n > 5 {
		switch suffix(r, 3) {
		case "ech", "ich", "ích", "ého", "ěmi", "emi", "ému", "ěte", "ete",
			"ěti", "eti", "iho", "ího", "ími", "imu":
			// The first letter of the ending may have palatalised the stem.
			return czechPalatalise(r[:n-2])
		case "ách", "ata", "aty", "ých", "ama", "ami", "ové", "ovi", "ými":
			return r[:n-3]
		}
	}
	if n > 4 {
		switch suffix(r, 2) {
		case "em", "es", "ém", "ím":
			// Keep the vowel for czechPalatalise, as above.
			return czechPalatalise(r[:n-1])
		case "ům", "at", "ám", "os", "us", "ým", "mi", "ou":
			return r[:n-2]
		}
	}
	if n > 3 {
		switch r[n-1] {
		case 'e', 'i', 'í', 'ě':
			return czechPalatalise(r)
		case 'u', 'y', 'ů', 'a', 'o', 'á', 'é', 'ý':
			return r[:n-1]
		}
	}
	return r
}

// czechPossessive strips the possessive adjective suffixes -ov (otcův
// forms) and -in (matčin forms).
func czechPossessive(r []rune) []rune {
	n := len(r)
	if n > 5 {
		switch suffix(r, 2) {
		case "ov":
			return r[:n-2]
		case "in":
			return czechPalatalise(r[:n-1])
		}
	}
	return r
}

// czechPalatalise takes a stem that still ends in the vowel of its ending
// (e, i, í, ě) and turns the softened consonant before it back into its
// hard form: c/č → k, z/ž → h, čt → ck, št → sk. Otherwise it just drops
// the vowel.
func czechPalatalise(r []rune) []rune {
	n := len(r)
	switch suffix(r, 2) {
	case "ci", "ce", "či", "če":
		return append(r[:n-2], 'k')
	case "zi", "ze", "ži", "že":
		return append(r[:n-2], 'h')
	}
	switch suffix(r, 3) {
	case "čtě", "čti", "čtí":
		return append(r[:n-3], 'c', 'k')
	case "ště", "šti", "ští":
		return append(r[:n-3], 's', 'k')
	}
	if n == 0 {
		return r
	}
	return r[:n-1]
}

// suffix returns the last k letters of r, or "" when r is shorter.
func suffix(r []rune, k int) string {
	if len(r) < k {
		return ""
	}
	return string(r[len(r)-k:])
}

func hasSuffix(r []rune, s string) bool {
	return strings.HasSuffix(string(r), s)
}
