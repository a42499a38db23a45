package main

import (
	"context"
	"fmt"
	"math"
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
}

// makeQueries is the training data's recipe. Passages are drawn in a
// seeded order; from each, one sentence of 8 to 40 words (prose, not
// code or a table row) is the answer, and the query is made from it in
// one of four shapes, taken in turn:
//
//  0. heading: the last heading over the passage (else the note's title)
//     and the sentence's two rarest words;
//  1. words: half the sentence's content words (3 to 8), in order;
//  2. paraphrase: the same, with each word in two swapped for a WordNet
//     neighbour in an English note, or for its English translation in a
//     note in another language (a cross-language question); every
//     fourth such query, from an English note, is translated whole into
//     Italian or Spanish;
//  3. question: "how" or "what" and the sentence's three rarest words.
//
// Rarity is the keyword index's own document frequency. The recipe never
// reads a gold question.
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
	idf := map[string]float64{}
	rarity := func(w string) float64 {
		if v, ok := idf[w]; ok {
			return v
		}
		m, all, err := s.Frequency(ctx, w)
		v := 0.0
		if err == nil {
			v = math.Log(1 + (float64(all-m)+0.5)/(float64(m)+0.5))
		}
		idf[w] = v
		return v
	}
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
			rare := append([]string(nil), content...)
			sort.SliceStable(rare, func(i, j int) bool { return rarity(rare[i]) > rarity(rare[j]) })
			var q string
			switch len(out) % 4 {
			case 0:
				heads := strings.Split(d.Crumbs, " › ")
				q = heads[len(heads)-1] + " " + strings.Join(rare[:2], " ")
			case 1:
				q = strings.Join(half(content, rng), " ")
			case 2:
				q = paraphrase(half(content, rng), l, len(out)/4%4 == 0, rng)
			case 3:
				q = []string{"how", "what"}[rng.Intn(2)] + " " + strings.Join(rare[:3], " ")
			}
			if len(lang.Words(q)) < 2 {
				continue
			}
			out = append(out, pseudo{text: q, path: d.Path, span: eval.Normalize(sent)})
		}
	}
	return out, nil
}

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

// half keeps a random half of words (3 to 8 of them), in order.
func half(words []string, rng *rand.Rand) []string {
	k := min(max(len(words)/2, 3), 8, len(words))
	keep := rng.Perm(len(words))[:k]
	sort.Ints(keep)
	out := make([]string, k)
	for i, j := range keep {
		out[i] = words[j]
	}
	return out
}

// paraphrase swaps words for neighbours: WordNet's in English, English
// translations otherwise; whole, when asked, an English query goes into
// Italian or Spanish.
func paraphrase(words []string, l lang.Lang, whole bool, rng *rand.Rand) string {
	if l == lang.English && whole {
		to := []lang.Lang{lang.Italian, lang.Spanish}[rng.Intn(2)]
		var out []string
		for _, w := range words {
			out = append(out, translated(w, l, to))
		}
		return strings.Join(out, " ")
	}
	out := append([]string(nil), words...)
	for i, w := range out {
		if rng.Intn(2) == 0 {
			continue
		}
		if l == lang.English {
			if ts, err := syn.Expand([]string{w}, syn.Options{}); err == nil {
				for _, t := range ts {
					if t.Text != w {
						out[i] = t.Text
						break
					}
				}
			}
		} else {
			out[i] = translated(w, l, lang.English)
		}
	}
	return strings.Join(out, " ")
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
