package lang

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang/dict"
)

// Reading is a query word and the one language whose word list says it
// is that language's word.
type Reading struct {
	Word string `json:"word"`
	From Lang   `json:"from"`
}

// MaxReadings caps the words ReadWords returns: the words of a query
// whose language could not be detected are read one by one, which is
// meant for the short queries of a search box, not for a pasted page.
const MaxReadings = 8

// minReadWord is the shortest word ReadWords reads: one- and two-letter
// words ("a", "e", "je", "to") are headwords, stop words or abbreviations
// in almost every language.
const minReadWord = 3

// ReadWords tells the language of each word of a query whose language as
// a whole is Unknown, by the word lists of among (the vault's languages)
// that have it as a headword. A word is read as language L when L's list
// has it and no other list does: first as written; then, for a word with
// no accents, among the headwords as they fold ("rajcata" for
// "rajčata"); then by its stem in each language. A word two languages
// know equally ("den": a lair in English, a day in Czech) is a tie, and a
// tie, as in Detection, is left unread: translating it from both would
// add the wrong language's meaning to every search for it. Stop words of
// any of among, words shorter than three letters and words with digits
// are not read. Only languages whose words can be translated into
// another of among count: English when among has a language with an
// English word list, another language when among has English.
//
// The readings come in query order, each word once, at most MaxReadings.
// The user's own words are searched as they are in every language's
// fields (each stemmed by that language's analyzer), so a word left
// unread is still found where it is written.
func ReadWords(query string, among []Lang) []Reading {
	sources := readable(among)
	if len(sources) == 0 {
		return nil
	}
	stopOnce.Do(loadStops)
	var out []Reading
	seen := map[string]bool{}
	for _, w := range Words(query) {
		if len(out) == MaxReadings {
			break
		}
		if seen[w] || !readableWord(w, among) {
			continue
		}
		seen[w] = true
		if l := readWord(w, sources); l != Unknown {
			out = append(out, Reading{Word: w, From: l})
		}
	}
	return out
}

// source is a language whose word list ReadWords consults: for English,
// its lists into the other languages at hand; for the others, their list
// into English.
type source struct {
	l      Lang
	tables []*dict.Table
}

func readable(among []Lang) []source {
	if !slices.Contains(among, English) {
		return nil // every word list has English on one side
	}
	var out []source
	english := source{l: English}
	for _, l := range among {
		if l == English || l == Unknown {
			continue
		}
		if t, _ := dict.Load(string(English), string(l)); t != nil {
			english.tables = append(english.tables, t)
		}
		if t, _ := dict.Load(string(l), string(English)); t != nil {
			out = append(out, source{l: l, tables: []*dict.Table{t}})
		}
	}
	if len(english.tables) > 0 {
		out = append([]source{english}, out...)
	}
	return out
}

func readableWord(w string, among []Lang) bool {
	if utf8.RuneCountInString(w) < minReadWord {
		return false
	}
	for _, r := range w {
		if unicode.IsDigit(r) {
			return false
		}
	}
	for _, sl := range stopLangs[w] {
		for _, l := range among {
			if sl == l {
				return false
			}
		}
	}
	return true
}

// readWord returns the one source language that knows w best, or Unknown
// when none does or two know it alike. Each step runs only when the
// earlier found nothing: a headword as written outranks a folded one,
// and either outranks a stem (stems are shared more), so the later steps
// could not change a decision the earlier made.
func readWord(w string, sources []source) Lang {
	steps := []func(s source) bool{
		func(s source) bool {
			for _, t := range s.tables {
				if t.Lookup(w) != nil {
					return true
				}
			}
			return false
		},
		func(s source) bool {
			// Only a word typed without accents may be missing them.
			if s.l == English || Fold(w) != w {
				return false
			}
			return s.tables[0].LookupFolded(w, folding()) != nil
		},
		func(s source) bool {
			st := Stem(s.l, w)
			if utf8.RuneCountInString(st) < minStem(s.l) {
				return false
			}
			for _, t := range s.tables {
				if t.Lookup(dict.StemPrefix+st) != nil {
					return true
				}
			}
			return false
		},
	}
	for _, knows := range steps {
		found := Unknown
		for _, s := range sources {
			if !knows(s) {
				continue
			}
			if found != Unknown {
				return Unknown // a tie
			}
			found = s.l
		}
		if found != Unknown {
			return found
		}
	}
	return Unknown
}

// WarmReading opens now (Warm) the word lists that ReadWords consults
// for among, rather than at the first word typed without accents, which
// in a search box is the first keystroke. It is safe to call from a
// goroutine, and cheap once done.
func WarmReading(among []Lang) {
	for _, s := range readable(among) {
		if s.l != English {
			Warm(s.l, English) // s.tables[0], the list into English
		}
	}
}
