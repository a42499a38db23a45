package syn

import (
	"fmt"
	"strings"

	"github.com/quire-app/quire/sidecar/lang"
)

// Defaults for Options.
const (
	DefaultMax    = 3
	DefaultWeight = 0.3
	DefaultDecay  = 0.8
)

// Options tune Expand. The zero value means the defaults.
type Options struct {
	// Max is the number of related words kept per query word or phrase
	// (default 3).
	Max int
	// Weight is the weight of a word's first related word, next to the
	// 1.0 the caller gives the user's own words (default 0.3): below a
	// translation's 0.7, since a translation says what the user meant in
	// another language while a synonym may belong to a sense the user did
	// not mean. Of 0.3, 0.5 and 0.7 on the dev set, 0.3 was the one that
	// lowered no score of any question type (README, "Figures").
	Weight float64
	// Decay multiplies the weight of each further related word of the
	// same query word (default 0.8: 0.3, 0.24, 0.19).
	Decay float64
	// Hypernyms adds the broader words the table lists for nouns ("bike"
	// → "wheeled vehicle") after the synonyms, and Hyponyms the narrower
	// ones. The embedded table has neither: on the dev set hypernyms
	// changed no recall and hyponyms lowered it (gensyn -hyper and -hypo
	// generate them).
	Hypernyms bool
	Hyponyms  bool
}

func (o Options) withDefaults() Options {
	if o.Max <= 0 {
		o.Max = DefaultMax
	}
	if o.Weight <= 0 {
		o.Weight = DefaultWeight
	}
	if o.Decay <= 0 {
		o.Decay = DefaultDecay
	}
	return o
}

// How a Term relates to its source.
const (
	Synonym  = "synonym"
	Hypernym = "hypernym"
	Hyponym  = "hyponym"
)

// Term is one weighted related word of a query.
type Term struct {
	// Text is a related word, or the words of a two-word one ("ice
	// cream") that the query lacks, for the caller's analyzer to split.
	Text   string  `json:"text"`
	Weight float64 `json:"weight"`
	// Source is the query word or two-word phrase Text relates to, as the
	// user wrote it; Lemma is the table entry it was found under.
	Source string `json:"source"`
	Lemma  string `json:"lemma"`
	Rel    string `json:"rel"`
}

// Expand returns related words for the lowercased words of an English
// query (lang.Words gives them), up to opt.Max per query word, weighted
// from opt.Weight down. Stop words are skipped. Two neighbouring words
// that form a WordNet collocation ("chess pieces" → "chess piece") are
// expanded together and not on their own, since the phrase fixes their
// sense. A related word that any query word already covers (the same
// English stem, or a stop word) is left out, and the same related word
// reached from two query words appears once, at its higher weight. The
// user's own words are never in the result: the caller searches them as
// they are.
func Expand(words []string, opt Options) ([]Term, error) {
	t, err := load()
	if err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	covered := map[string]bool{}
	for _, w := range words {
		covered[lang.Stem(lang.English, w)] = true
	}
	var out []Term
	seen := map[string]int{} // term text → index in out
	add := func(source, lemma string, items []string) {
		weight, n := opt.Weight, 0
		for _, it := range items {
			if n == opt.Max {
				return
			}
			if it == "" {
				continue
			}
			rel := Synonym
			switch it[0] {
			case markHypernym:
				if !opt.Hypernyms {
					continue
				}
				rel, it = Hypernym, it[1:]
			case markHyponym:
				if !opt.Hyponyms {
					continue
				}
				rel, it = Hyponym, it[1:]
			case markLemma:
				continue
			}
			if it = uncovered(it, covered); it == "" {
				continue
			}
			if i, ok := seen[it]; ok {
				out[i].Weight = max(out[i].Weight, weight)
			} else {
				seen[it] = len(out)
				out = append(out, Term{Text: it, Weight: weight, Source: source, Lemma: lemma, Rel: rel})
			}
			weight *= opt.Decay
			n++
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if lang.IsStop(lang.English, w) {
			continue
		}
		if i+1 < len(words) && !lang.IsStop(lang.English, words[i+1]) {
			if lemma, items := t.find(w + " " + words[i+1]); items != nil {
				add(w+" "+words[i+1], lemma, items)
				i++
				continue
			}
		}
		if lemma, items := t.find(w); items != nil {
			add(w, lemma, items)
		}
	}
	return out, nil
}

// uncovered returns the words of a related item that no query word
// covers (the same English stem) and that are not stop words: searching
// "cappuccino coffee" for "cappuccino" adds only "coffee".
func uncovered(item string, covered map[string]bool) string {
	var out []string
	for _, w := range strings.Fields(item) {
		if !lang.IsStop(lang.English, w) && !covered[lang.Stem(lang.English, w)] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// String renders terms one line per source, e.g.
//
//	bike → bicycle 0.50, cycle 0.40
//	chess pieces (chess piece) → chessman 0.50
func String(terms []Term) string {
	var b strings.Builder
	for i := 0; i < len(terms); {
		src, lemma := terms[i].Source, terms[i].Lemma
		fmt.Fprintf(&b, "  %s", src)
		if lemma != src {
			fmt.Fprintf(&b, " (%s)", lemma)
		}
		b.WriteString(" →")
		j := i
		for ; j < len(terms) && terms[j].Source == src; j++ {
			if j > i {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %s %.2f", terms[j].Text, terms[j].Weight)
			switch terms[j].Rel {
			case Hypernym:
				b.WriteString(" (broader)")
			case Hyponym:
				b.WriteString(" (narrower)")
			}
		}
		b.WriteByte('\n')
		i = j
	}
	return b.String()
}
