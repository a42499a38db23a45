package lang

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang/dict"
)

// Defaults for Options.
const (
	DefaultMax    = 3
	DefaultWeight = 0.7
	DefaultDecay  = 0.8
)

// Options tune Translate. The zero value means the defaults.
type Options struct {
	// Max is the number of translations kept per query word (default 3).
	Max int
	// Weight is the weight of a word's best translation, next to the 1.0
	// the caller gives the user's own words (default 0.7): a translation
	// may be wrong, the user's word never is.
	Weight float64
	// Decay multiplies the weight of each further translation of the same
	// word (default 0.8: 0.7, 0.56, 0.45).
	Decay float64
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

// minStem is the shortest stem looked up. The Snowball stemmers strip
// derivational suffixes too, so their short stems join unrelated words
// (Italian "set" and "sete", thirst); the Czech light stemmer strips only
// inflection, and Czech roots are short (řek-a, hr-a, dům).
func minStem(l Lang) int {
	if l == Czech {
		return 3
	}
	return 4
}

// How a Term was found.
const (
	ViaWord = "word" // the query word is a dictionary headword
	ViaStem = "stem" // a word with the same stem is
	ViaKept = "kept" // no translation: a name, a number, a rare word
)

// Term is one weighted term of a translated query.
type Term struct {
	// Text is a translation (a word, or a short phrase such as "at home"
	// that the caller's analyzer will split), or the query word itself
	// when Via is ViaKept.
	Text   string  `json:"text"`
	Weight float64 `json:"weight"`
	// Source is the query word Text translates.
	Source string `json:"source"`
	Via    string `json:"via"`
}

// Translate translates query word by word from one language to another,
// one of them English: it drops the stop words of from, looks each other
// word up as written, then by its stem, then (for a word typed without
// accents) among the headwords and stems with their accents folded, and returns up to opt.Max
// translations per word, weighted from opt.Weight down. A word with no
// translation comes back as itself with weight 1 and Via ViaKept, so that
// a caller building a query in the target language alone keeps names and
// numbers; a caller that already searches the user's words can skip those.
// The same translation reached from two words appears once, at its higher
// weight. Pairs without a table (from == to, Unknown, it→es) give nil.
func Translate(query string, from, to Lang, opt Options) ([]Term, error) {
	e, err := explain(query, from, to, opt)
	return e.Terms, err
}

// Explanation says how a query was translated, for `quire search --explain`.
type Explanation struct {
	Query string `json:"query"`
	// From is the query's language, detected when the caller gave Unknown.
	From       Lang    `json:"from"`
	Detected   bool    `json:"detected"`
	Confidence float64 `json:"confidence,omitempty"`
	To         Lang    `json:"to"`
	// Dropped lists the stop words left out.
	Dropped []string `json:"dropped,omitempty"`
	Terms   []Term   `json:"terms"`
}

// Explain is Translate that also reports what it did; with from Unknown
// it detects the query's language first (and translates nothing when
// detection finds no evidence).
func Explain(query string, from, to Lang, opt Options) (Explanation, error) {
	if from != Unknown {
		return explain(query, from, to, opt)
	}
	l, conf := Detection(query)
	e, err := explain(query, l, to, opt)
	e.Detected, e.Confidence = true, conf
	return e, err
}

// String renders the explanation on one line per query word, e.g.
//
//	it→en (detected, 0.93)
//	  formaggio → cheese 0.70
//	  stagionato → seasoned 0.70 (stem)
//	  ariosto kept
func (e Explanation) String() string {
	var b strings.Builder
	from := string(e.From)
	if from == "" {
		from = "unknown"
	}
	fmt.Fprintf(&b, "%s→%s", from, e.To)
	if e.Detected {
		fmt.Fprintf(&b, " (detected, %.2f)", e.Confidence)
	}
	b.WriteByte('\n')
	if len(e.Dropped) > 0 {
		fmt.Fprintf(&b, "  stop words: %s\n", strings.Join(e.Dropped, " "))
	}
	for i := 0; i < len(e.Terms); {
		src := e.Terms[i].Source
		if e.Terms[i].Via == ViaKept {
			fmt.Fprintf(&b, "  %s kept\n", src)
			i++
			continue
		}
		fmt.Fprintf(&b, "  %s →", src)
		j := i
		for ; j < len(e.Terms) && e.Terms[j].Source == src && e.Terms[j].Via != ViaKept; j++ {
			fmt.Fprintf(&b, " %s %.2f", e.Terms[j].Text, e.Terms[j].Weight)
		}
		if e.Terms[i].Via == ViaStem {
			b.WriteString(" (stem)")
		}
		b.WriteByte('\n')
		i = j
	}
	return b.String()
}

func explain(query string, from, to Lang, opt Options) (Explanation, error) {
	e := Explanation{Query: query, From: from, To: to}
	if from == Unknown || to == Unknown || from == to {
		return e, nil
	}
	table, err := dict.Load(string(from), string(to))
	if err != nil || table == nil {
		return e, err
	}
	opt = opt.withDefaults()
	seen := map[string]int{} // term text → index in e.Terms
	add := func(t Term) {
		if i, ok := seen[t.Text]; ok {
			if t.Weight > e.Terms[i].Weight {
				e.Terms[i].Weight = t.Weight
			}
			return
		}
		seen[t.Text] = len(e.Terms)
		e.Terms = append(e.Terms, t)
	}
	done := map[string]bool{}
	for _, w := range Words(query) {
		if IsStop(from, w) {
			e.Dropped = append(e.Dropped, w)
			continue
		}
		if done[w] {
			continue
		}
		done[w] = true
		trs, via := lookup(table, from, w)
		if len(trs) == 0 {
			add(Term{Text: w, Weight: 1, Source: w, Via: ViaKept})
			continue
		}
		weight := opt.Weight
		for i, tr := range trs {
			if i == opt.Max {
				break
			}
			add(Term{Text: tr, Weight: weight, Source: w, Via: via})
			weight *= opt.Decay
		}
	}
	return e, nil
}

// Warm opens the from→to word list and lists the letters that fold now
// rather than at the first query that needs them. It is safe to call
// from a goroutine at start-up.
func Warm(from, to Lang) error {
	_, err := dict.Load(string(from), string(to))
	folding()
	return err
}

// lookup finds the translations of w: as written, then by its stem. A
// word typed without accents ("citta", "mestech") may be missing them, so
// it is also looked up among the headwords and stems as they fold; its
// unaccented stem may belong to another word (Czech "mest" is both měst-,
// town, and mést, sweep), so both stems' translations are taken, in turn.
func lookup(table *dict.Table, from Lang, w string) ([]string, string) {
	if trs := table.Lookup(w); len(trs) > 0 {
		return trs, ViaWord
	}
	unaccented := from != English && Fold(w) == w
	if unaccented {
		if trs := table.LookupFolded(w, folding()); len(trs) > 0 {
			return trs, ViaWord
		}
	}
	st := Stem(from, w)
	if utf8.RuneCountInString(st) < minStem(from) {
		return nil, ViaKept
	}
	trs := table.Lookup(dict.StemPrefix + st)
	if unaccented {
		trs = interleave(trs, table.LookupFolded(dict.StemPrefix+st, folding()))
	}
	return trs, ViaStem
}

// interleave merges two ranked lists, a's first, b's first, a's second…,
// without repeats.
func interleave(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := make([]string, 0, len(a)+len(b))
	for i := 0; i < len(a) || i < len(b); i++ {
		for _, l := range [][]string{a, b} {
			if i < len(l) && !slices.Contains(out, l[i]) {
				out = append(out, l[i])
			}
		}
	}
	return out
}
