package main

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"

	"github.com/quire-app/quire/sidecar/eval"
	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/lang/syn"
	"github.com/quire-app/quire/sidecar/search"
)

// pseudo is one training query: its text, and the sentence of the note
// at path that answers it.
type pseudo struct {
	text, path, span string
	shape            int
}

// numShapes is how many query shapes the recipe takes in turn.
const numShapes = 7

// makeQueries is the training data's recipe. Passages are drawn in a
// seeded order; from each, one sentence of 8 to 40 words (prose, not
// code or a table row) is the answer. A question names its subject and
// asks about a detail in other words, so each query holds only two or
// three of the sentence's content words (in order), each swapped with
// even odds for a neighbour (WordNet's, in an English note; its English
// translation in a note in another language), in one of seven shapes
// taken in turn (-shapes fits on some of them):
//
//  0. the note's title and the words;
//  1. "how", "what", "why" or "when", the words and, with even odds, the
//     title;
//  2. four or five such words, no title;
//  3. the title and the words, none swapped;
//  4. across languages: shape 0 with every word translated, from an
//     English note into Italian or Spanish, from any other into English;
//  5. the passage's own heading (with the title when the heading has
//     fewer than three words), none of the sentence's words: the body
//     answers what its heading names (shape 6 when the passage has no
//     heading but the title);
//  6. "how", "what", "why" or "which" and four or five words, every one
//     swapped for a neighbour where it has one: the least lexical shape.
//
// The vault's own document frequencies never pick the words, and the
// recipe never reads a gold question.
func makeQueries(ctx context.Context, s *search.Searcher, n int, seed int64) ([]pseudo, error) {
	counts, err := s.BM25.Paths()
	if err != nil {
		return nil, err
	}
	var ids []string
	for p, c := range counts {
		for i := 0; i < c; i++ {
			ids = append(ids, fmt.Sprintf("%s#%d", p, i))
		}
	}
	sort.Strings(ids)
	rng := rand.New(rand.NewSource(seed))
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	var out []pseudo
	for start := 0; start < len(ids) && len(out) < n; start += 64 {
		batch := ids[start:min(start+64, len(ids))]
		docs, err := s.BM25.Docs(ctx, batch)
		if err != nil {
			return nil, err
		}
		for _, id := range batch {
			d, ok := docs[id]
			if !ok || len(out) >= n {
				continue
			}
			sent := pickSentence(d.Text, rng)
			if sent == "" {
				continue
			}
			l := lang.Detect(sent)
			content := contentWords(sent, l)
			if len(content) < 4 {
				continue
			}
			title := d.Title
			shape := len(out) % numShapes
			if shape == 5 && (len(d.Headings) == 0 || d.Headings[len(d.Headings)-1] == title) {
				shape = 6 // no heading of its own to ask by
			}
			k := 2 + rng.Intn(2)
			if shape == 2 || shape == 6 {
				k += 2
			}
			words := pick(content, k, rng)
			switch shape {
			case 3, 4, 5:
			case 6:
				words = swappedWith(words, l, rng, 1)
			default:
				words = swapped(words, l, rng)
			}
			var q string
			switch shape {
			case 0, 3:
				q = title + " " + strings.Join(words, " ")
			case 1:
				q = []string{"how", "what", "why", "when"}[rng.Intn(4)] + " " + strings.Join(words, " ")
				if rng.Intn(2) == 0 {
					q += " " + title
				}
			case 2:
				q = strings.Join(words, " ")
			case 5:
				q = d.Headings[len(d.Headings)-1]
				if len(lang.Words(q)) < 3 {
					q = title + " " + q
				}
			case 6:
				q = []string{"how", "what", "why", "which"}[rng.Intn(4)] + " " + strings.Join(words, " ")
			case 4:
				to := lang.English
				if l == lang.English {
					to = []lang.Lang{lang.Italian, lang.Spanish}[rng.Intn(2)]
				}
				var tr []string
				for _, w := range append(lang.Words(title), words...) {
					tr = append(tr, translated(w, l, to))
				}
				q = strings.Join(tr, " ")
			}
			if len(lang.Words(q)) < 2 {
				continue
			}
			out = append(out, pseudo{text: q, path: d.Path, span: eval.Normalize(sent), shape: shape})
		}
	}
	return out, nil
}

// swapOdds are the odds that the recipe swaps a word for a neighbour
// (-swap; the committed weights were fitted with 0.5).
var swapOdds = 0.5

// pickSentence returns one prose sentence of 8 to 40 words of text, or "".
func pickSentence(text string, rng *rand.Rand) string {
	var cands []string
	fence := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || t == "" || strings.HasPrefix(line, "    ") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "#") {
			continue
		}
		for _, sent := range splitSentences(t) {
			if n := len(lang.Words(sent)); n >= 8 && n <= 40 {
				cands = append(cands, sent)
			}
		}
	}
	if len(cands) == 0 {
		return ""
	}
	return cands[rng.Intn(len(cands))]
}

// splitSentences cuts a line after ". ", "? " and "! ".
func splitSentences(line string) []string {
	var out []string
	from := 0
	for i := 0; i+1 < len(line); i++ {
		if (line[i] == '.' || line[i] == '?' || line[i] == '!') && line[i+1] == ' ' {
			out = append(out, strings.TrimSpace(line[from:i+1]))
			from = i + 2
		}
	}
	return append(out, strings.TrimSpace(line[from:]))
}

// contentWords are the sentence's words of three letters or more that are
// not stop words of its language, each once, in order.
func contentWords(sent string, l lang.Lang) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range lang.Words(sent) {
		if len([]rune(w)) < 3 || lang.IsStop(l, w) || lang.IsStop(lang.English, w) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// pick keeps k of words at random, in order.
func pick(words []string, k int, rng *rand.Rand) []string {
	k = min(k, len(words))
	keep := rng.Perm(len(words))[:k]
	sort.Ints(keep)
	out := make([]string, k)
	for i, j := range keep {
		out[i] = words[j]
	}
	return out
}

// swapped swaps each word with even odds for a neighbour: WordNet's in
// English, its English translation in another language.
func swapped(words []string, l lang.Lang, rng *rand.Rand) []string {
	return swappedWith(words, l, rng, swapOdds)
}

// swappedWith swaps each word for a neighbour with the given odds.
func swappedWith(words []string, l lang.Lang, rng *rand.Rand, odds float64) []string {
	out := append([]string(nil), words...)
	for i, w := range out {
		if rng.Float64() >= odds {
			continue
		}
		if l != lang.English {
			out[i] = translated(w, l, lang.English)
			continue
		}
		if ts, err := syn.Expand([]string{w}, syn.Options{}); err == nil {
			for _, t := range ts {
				if t.Text != w {
					out[i] = t.Text
					break
				}
			}
		}
	}
	return out
}

// translated is w's best translation from one language into another, or w.
func translated(w string, from, to lang.Lang) string {
	ts, err := lang.Translate(w, from, to, lang.Options{})
	if err != nil {
		return w
	}
	best, bw := w, 0.0
	for _, t := range ts {
		if t.Via != lang.ViaKept && t.Weight > bw {
			best, bw = t.Text, t.Weight
		}
	}
	return best
}
