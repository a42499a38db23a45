package ask

import (
	"context"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/search"
)

// Extraction limits: the top passages are read for sentences, and the
// best few are shown.
const (
	extractPassages  = 5
	extractSentences = 3
	maxSentenceBytes = 400
)

// refusals say "I can't find this in your notes." per language.
var refusals = map[lang.Lang]string{
	lang.English: "I can't find this in your notes.",
	lang.Czech:   "To ve vašich poznámkách nemohu najít.",
	lang.Spanish: "No encuentro esto en tus notas.",
	lang.Italian: "Non lo trovo nelle tue note.",
	lang.German:  "Das finde ich nicht in deinen Notizen.",
	lang.French:  "Je ne trouve pas cela dans tes notes.",
}

// extractLabels head an extracted answer, so that nobody takes it for a
// generated one.
var extractLabels = map[lang.Lang]string{
	lang.English: "Extracted from your notes (no model answered; these are the closest sentences, not a generated answer):",
	lang.Czech:   "Vybráno z vašich poznámek (žádný model neodpověděl; toto jsou nejbližší věty, ne vygenerovaná odpověď):",
	lang.Spanish: "Extraído de tus notas (ningún modelo respondió; son las frases más cercanas, no una respuesta generada):",
	lang.Italian: "Estratto dalle tue note (nessun modello ha risposto; sono le frasi più vicine, non una risposta generata):",
	lang.German:  "Aus deinen Notizen entnommen (kein Modell hat geantwortet; das sind die passendsten Sätze, keine erzeugte Antwort):",
	lang.French:  "Extrait de tes notes (aucun modèle n'a répondu ; ce sont les phrases les plus proches, pas une réponse générée) :",
}

// Refusal is the answer given when the notes do not hold one, in the
// language l (English for a language it has no sentence for).
func Refusal(l lang.Lang) string { return refusal(l) }

func refusal(l lang.Lang) string {
	if s, ok := refusals[l]; ok {
		return s
	}
	return refusals[lang.English]
}

func extractLabel(l lang.Lang) string {
	if s, ok := extractLabels[l]; ok {
		return s
	}
	return extractLabels[lang.English]
}

// sentence is a candidate for an extracted answer.
type sentence struct {
	text  string
	n     int // passage number
	score float64
	order int // position among all candidates, for stable ties
}

// extract answers from the passages without a model: the sentences of the
// top passages that share the most question words (or their translations)
// are given, best first, each cited. No matching sentence is a refusal.
//
// For a follow-up, the sentences the conversation already showed are not
// given again, and when none matches the follow-up's own words ("and how
// often?"), the previous question's words are matched too.
//
// searched is how the search read its text: a question that is that text
// is not translated again.
func (a *Asker) extract(ctx context.Context, ans *Answer, history []Turn, searched search.Terms) {
	ans.Extracted = true
	ans.Model = ""
	ans.Remote = false
	ans.Quotes = nil
	ans.Citations = nil
	ans.Dropped = 0
	// Read the best passages in retrieval order.
	top := append([]Passage(nil), ans.Passages...)
	sort.SliceStable(top, func(i, j int) bool { return top[i].Rank < top[j].Rank })
	if len(top) > extractPassages {
		top = top[:extractPassages]
	}
	shown := map[string]bool{}
	for _, t := range history {
		// An extracted answer quotes one sentence a line, after "> ".
		for _, line := range strings.Split(t.Answer, "\n") {
			shown[normalize(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ">")))] = true
		}
		for _, s := range sentences(t.Answer) {
			shown[normalize(s)] = true
		}
	}
	// The follow-up's own words first, then with the previous question's;
	// a sentence shown before is given again only when nothing else
	// matches, as "not in your notes" would then be untrue.
	termSets := []termSet{a.questionTerms(ctx, ans.Question, ans.Lang, searched)}
	if len(history) > 0 {
		termSets = append(termSets, a.questionTerms(ctx, searchText(ans.Question, history), ans.Lang, searched))
	}
	var cands []sentence
	for _, skip := range []map[string]bool{shown, nil} {
		for _, ts := range termSets {
			if len(cands) == 0 {
				cands, ans.Evidence = a.candidates(top, ts, skip)
			}
		}
	}
	// Weak evidence is a refusal: some sentence must hold enough of the
	// question's words (or their translations), weighed by their rarity.
	// Any shared word used to be enough. A question about a name no
	// passage holds ("What is the capital of Mongolia?" in a vault that
	// never names Mongolia) has no evidence at all (termSet.absentName).
	if len(cands) > 0 && ans.Evidence < a.minEvidence() {
		cands = nil
	}
	// Keep the best few, and only those close to the best: a weak third
	// sentence is noise, not an answer.
	keep := 0
	for keep < len(cands) && keep < extractSentences && cands[keep].score >= cands[0].score/2 {
		keep++
	}
	cands = cands[:keep]
	if len(cands) == 0 {
		ans.Text = refusal(ans.Lang)
		ans.Refused, ans.Grounded = true, false
		return
	}
	byN := map[int]Passage{}
	for _, p := range ans.Passages {
		byN[p.N] = p
	}
	var b strings.Builder
	b.WriteString(extractLabel(ans.Lang))
	b.WriteString("\n")
	for _, c := range cands {
		b.WriteString("\n> ")
		b.WriteString(strings.ReplaceAll(c.text, "\n", "\n> "))
		// A citation after a closing fence would make that line no
		// fence at all ("``` [1]" closes nothing), and the rest of the
		// answer would render as code: it goes on its own line.
		if endsWithFence(c.text) {
			b.WriteString("\n>")
		}
		b.WriteString(" [" + strconv.Itoa(c.n) + "]")
		if !citedAlready(ans.Citations, c.n) {
			p := byN[c.n]
			ans.Citations = append(ans.Citations, Citation{N: c.n, Passage: p.Passage, Hash: hashText(p.Text)})
		}
	}
	ans.Text = b.String()
	ans.Grounded, ans.Refused = true, false
}

// candidates scores the sentences of top on terms, best first, leaving out
// those in shown (normalised). Each term is weighted by how rare it is
// among the sentences: in a cheese note "cheese" says little, and the
// sentence with the question's rarer words is the one to show. evidence
// is the best coverage of the question's words by one sentence.
func (a *Asker) candidates(top []Passage, terms termSet, shown map[string]bool) (cands []sentence, evidence float64) {
	var matches []map[string]float64
	df := map[string]int{}
	for _, p := range top {
		for _, s := range sentences(p.Text) {
			if shown[normalize(s)] {
				continue
			}
			m, length := terms.match(s)
			if len(m) == 0 {
				continue
			}
			for k := range m {
				df[k]++
			}
			// A sentence from a better passage wins a tie, and a little more.
			rankBoost := 1 / (1 + 0.15*float64(p.Rank))
			cands = append(cands, sentence{text: s, n: p.N, score: rankBoost / math.Sqrt(1+float64(length)/20), order: len(cands)})
			matches = append(matches, m)
			evidence = max(evidence, terms.coverage(m))
		}
	}
	for i := range cands {
		sum := 0.0
		for k, wt := range matches[i] {
			sum += wt * math.Log(1+float64(len(cands))/float64(df[k]))
		}
		cands[i].score *= sum
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	return cands, evidence
}

// DefaultMinEvidence is the least evidence (Answer.Evidence: the share of
// the question's content words, weighted by their rarity in the vault,
// that one sentence of the top passages holds) for an extracted answer;
// below it, a refusal. Chosen with `quire eval --ask` on the dev sets of
// ariostea-wiki and obsidian-help (en and multi) and the unanswerable
// questions in scripts/testdata/unanswerable, together with absentWeight:
// 0.10 is the highest value at which no dev question answered from an
// expected note is refused (bm25 and hybrid), under the current keyword
// query as under the earlier one. It refuses 2 (ariostea) to 14 (English
// help vault) of the 22 unanswerable questions of each (README,
// "Figures"): a question made of the vault's own
// words is still answered with its closest sentences, labelled as
// extracted.
const DefaultMinEvidence = 0.10

// absentWeight multiplies the weight of a question word that no passage
// holds, nor any of its translations: an unanswerable question usually
// asks about something the vault never names. 3 kept every answered dev
// question at the threshold above and refused the most unanswerable
// ones; 2 and 5 did worse, and 100 (any such word decides) lost a tenth
// to a quarter of the answers (README, "Figures").
const absentWeight = 3

func (a *Asker) minEvidence() float64 {
	switch {
	case a.MinEvidence < 0:
		return 0
	case a.MinEvidence == 0:
		return DefaultMinEvidence
	}
	return a.MinEvidence
}

// coverage is the share of the question's own content words that a
// sentence matched (a translation's match counts for the word it
// translates, once), each word weighted by its rarity in the vault; at
// most 1.
func (ts termSet) coverage(matched map[string]float64) float64 {
	if ts.absentName {
		return 0
	}
	var have, all float64
	for src, w := range ts.own {
		all += w
		if _, ok := matched[src]; ok {
			have += w
		}
	}
	if all == 0 {
		return 1
	}
	return min(have/all, 1)
}

func citedAlready(cs []Citation, n int) bool {
	for _, c := range cs {
		if c.N == n {
			return true
		}
	}
	return false
}

// termSet holds the question's content words as stems, per language,
// each with a weight (translations count less than the user's own words)
// and the question word it stands for.
type termSet struct {
	by map[lang.Lang]map[string]term
	// own are the question's own content words (folded stems), each
	// with its weight in the evidence: its rarity in the vault (1 when
	// the retriever cannot count).
	own map[string]float64
	// absentName: the question names something (a capitalised word not
	// at its start) that no passage holds, nor any translation of it.
	absentName bool
}

type term struct {
	weight float64
	src    string // the question word's folded stem
}

func (a *Asker) questionTerms(ctx context.Context, q string, ql lang.Lang, searched search.Terms) termSet {
	ts := termSet{by: map[lang.Lang]map[string]term{}, own: map[string]float64{}}
	forms := map[string][]string{} // a question word's forms: itself and its translations
	if ql == lang.Unknown {
		ql = lang.English
	}
	content := func(l lang.Lang, w string) (string, bool) {
		if l == lang.Unknown {
			l = lang.English
		}
		if utf8.RuneCountInString(w) < 2 || lang.IsStop(l, w) {
			return "", false
		}
		return lang.Fold(lang.Stem(l, w)), true
	}
	add := func(l lang.Lang, w string, weight float64, src string) {
		if l == lang.Unknown {
			l = lang.English
		}
		st, ok := content(l, w)
		if _, mine := ts.own[src]; !ok || !mine {
			return
		}
		if ts.by[l] == nil {
			ts.by[l] = map[string]term{}
		}
		if weight > ts.by[l][st].weight {
			ts.by[l][st] = term{weight: weight, src: src}
		}
	}
	names := map[string]bool{} // content words written as names
	// In a language that capitalises every noun (lang.CapitalisesNouns),
	// a capital says nothing of a name: a German question's compound noun
	// the vault does not hold ("Käsesorten") would otherwise refuse it
	// whatever its other words match; such a word still weighs
	// absentWeight in the evidence.
	var capital map[string]bool
	if !lang.CapitalisesNouns(ql) {
		capital = capitalised(q)
	}
	for _, w := range lang.Words(q) {
		src, ok := content(ql, w)
		if !ok {
			continue
		}
		names[src] = names[src] || capital[strings.ToLower(w)]
		ts.own[src] = 1
		forms[src] = append(forms[src], w)
		add(ql, w, 1, src)
		if ql != lang.English {
			// Names and borrowed words are often the same across languages.
			add(lang.English, w, 0.8, src)
		}
	}
	var extra []search.Term
	if searched.Query == q {
		extra = searched.Translations
	} else if tr, ok := a.Search.(translator); ok {
		extra = tr.Terms(q).Translations
	}
	for _, t := range extra {
		src, ok := content(ql, t.Source)
		if !ok {
			continue
		}
		for _, w := range lang.Words(t.Text) {
			add(lang.Parse(t.Lang), w, 0.8*max(min(t.Weight, 1), 0.1), src)
		}
		forms[src] = append(forms[src], t.Text)
	}
	// Weigh each word by its inverse document frequency over the vault,
	// counting the passages that hold it or any of its translations.
	if f, ok := a.Search.(frequency); ok {
		for src, ws := range forms {
			df, n, err := f.Frequency(ctx, strings.Join(ws, " "))
			if err != nil || n == 0 {
				continue
			}
			ts.own[src] = math.Log(1 + (float64(n)+1)/(float64(df)+0.5))
			if df == 0 {
				ts.own[src] *= absentWeight
				ts.absentName = ts.absentName || names[src]
			}
		}
	}
	return ts
}

// capitalised returns, lowercased, the words of q written with a capital
// letter other than its first word: the names it asks about.
func capitalised(q string) map[string]bool {
	out := map[string]bool{}
	for i, f := range strings.Fields(q) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if r, _ := utf8.DecodeRuneInString(f); i > 0 && unicode.IsUpper(r) {
			out[strings.ToLower(f)] = true
		}
	}
	return out
}

// match returns the question words a sentence has, each with the best
// weight it matched with (a word and its translation are one idea), and
// the sentence's length in words.
func (ts termSet) match(s string) (map[string]float64, int) {
	words := lang.Words(s)
	var matched map[string]float64
	for _, w := range words {
		for l, set := range ts.by {
			st := lang.Fold(lang.Stem(l, w))
			if t, ok := set[st]; ok {
				if matched == nil {
					matched = map[string]float64{}
				}
				if t.weight > matched[t.src] {
					matched[t.src] = t.weight
				}
			}
		}
	}
	return matched, len(words)
}

// sentences splits a passage's Markdown into plain sentences of at least
// four words (a list item of two), without headings or tables, and cuts an
// over-long one at a word. Lines of one paragraph are joined first: notes
// are often wrapped by hand, and a sentence must not end where a line
// does. A fenced code block is a candidate of its own, kept as code and
// joined to the sentence before it when that one ends with a colon ("To
// embed a block:"): the code is often the answer.
func sentences(md string) []string {
	var out, para, code []string
	minWords := 4
	flush := func() {
		if len(para) == 0 {
			return
		}
		t := linkRe.ReplaceAllStringFunc(strings.Join(para, " "), linkText)
		para = para[:0]
		for _, s := range splitSentences(markdown.Plain(t)) {
			s = strings.TrimSpace(s)
			if len(strings.Fields(s)) < minWords {
				continue
			}
			if len(s) > maxSentenceBytes {
				cut := strings.LastIndexByte(s[:maxSentenceBytes], ' ')
				s = s[:cut] + " …"
			}
			out = append(out, s)
		}
		minWords = 4
	}
	var fence markdown.Fence
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		t = strings.TrimSpace(strings.TrimLeft(t, ">")) // code and lists inside callouts
		wasCode := fence.Open()
		if fence.Line(t) && (!wasCode || !fence.Open()) {
			flush()
			code = append(code, t)
			if wasCode {
				block := strings.Join(code, "\n")
				if len(block) <= 2*maxSentenceBytes {
					if n := len(out); n > 0 && strings.HasSuffix(out[n-1], ":") {
						out[n-1] += "\n" + block
					} else {
						out = append(out, block)
					}
				}
				code = code[:0]
			}
			continue
		}
		if fence.Open() {
			if q := strings.TrimLeft(line, " "); strings.HasPrefix(q, ">") {
				line = strings.TrimPrefix(strings.TrimLeft(q, ">"), " ")
			}
			code = append(code, line)
			continue
		}
		t = calloutRe.ReplaceAllString(t, "")
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|") {
			flush()
			continue
		}
		if m := listMarkerRe.FindString(t); m != "" {
			flush() // a list item starts a paragraph of its own
			t = strings.TrimSpace(t[len(m):])
			minWords = 2 // "Press Ctrl+P." is a whole answer
		}
		para = append(para, t)
	}
	flush()
	return out
}

// endsWithFence reports whether s ends with a code fence line.
func endsWithFence(s string) bool {
	return markdown.IsFenceLine(s[strings.LastIndexByte(s, '\n')+1:])
}

// listMarkerRe matches what opens a list item or a block quote.
var listMarkerRe = regexp.MustCompile(`^(?:[-*+]|\d+[.)])\s+`)

// calloutRe matches a callout's type marker: "[!tip]".
var calloutRe = regexp.MustCompile(`^\[![\w-]+\][+-]?\s*`)

// linkRe finds wikilinks, which read as their display text in a sentence.
var linkRe = regexp.MustCompile(`!?\[\[([^\[\]\n]+?)\]\]`)

func linkText(m string) string {
	if strings.HasPrefix(m, "!") {
		return "" // an embed (a picture, an icon) is not words of the sentence
	}
	inner := strings.TrimSuffix(strings.TrimLeft(m, "!["), "]]")
	if _, display, ok := strings.Cut(inner, "|"); ok {
		return display
	}
	target, _, _ := strings.Cut(inner, "#")
	return target
}

// splitSentences cuts after . ! ? … when a space and a capital letter,
// digit or opening quote follow, except inside parentheses and after an
// abbreviation or an initial: "(e.g. Emmental)", "J. S. Bach".
func splitSentences(s string) []string {
	var out []string
	start := 0
	depth := 0
	rs := []rune(s)
	pos := 0 // byte offset of rs[i]
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		size := utf8.RuneLen(r)
		switch {
		case r == '(' || r == '[':
			depth++
		case (r == ')' || r == ']') && depth > 0:
			depth--
		case (r == '.' || r == '!' || r == '?' || r == '…') && depth == 0 && i+2 < len(rs) && rs[i+1] == ' ':
			next := rs[i+2]
			if (unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune("\"“«¿¡(", next)) &&
				!(r == '.' && abbreviation(s[start:pos])) {
				out = append(out, s[start:pos+size])
				start = pos + size + 1
			}
		}
		pos += size
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "ca": true, "approx": true, "no": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "prof": true, "jr": true, "sr": true,
	"p": true, "pp": true, "fig": true, "vol": true, "ed": true, "sig": true, "sr.a": true, "dott": true,
	"tzv": true, "např": true, "atd": true, "apod": true, "tj": true,
}

// abbreviation reports whether text ends with an abbreviation or a single
// letter (an initial), the period not included.
func abbreviation(text string) bool {
	i := strings.LastIndexAny(text, " (\n")
	w := strings.ToLower(text[i+1:])
	return abbreviations[w] || utf8.RuneCountInString(w) == 1 && w != "" && unicode.IsLetter([]rune(w)[0])
}
