package search

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang"
)

// Rerank is what reorders the fused pool before it is cut to k.
type Rerank string

// The rerank modes: none (the fused order), the built-in learned model,
// or a configured reranker endpoint (which falls back to the built-in).
const (
	RerankOff      Rerank = "off"
	RerankBuiltin  Rerank = "builtin"
	RerankEndpoint Rerank = "endpoint"
)

// ParseRerank checks a rerank mode from the command line or config.
func ParseRerank(s string) (Rerank, error) {
	switch Rerank(s) {
	case RerankOff, RerankBuiltin, RerankEndpoint:
		return Rerank(s), nil
	}
	return "", fmt.Errorf("unknown rerank %q (want off, builtin or endpoint)", s)
}

// Candidate is one passage of the pool the rerank stage reorders, with
// its channels' scores normalised over the pool as fusion sees them.
type Candidate struct {
	Passage
	// KW is the keyword score over the pool's best; Dense the cosine
	// min-max scaled over the dense pool. Zero: that channel did not
	// find the passage.
	KW, Dense float64
	// Fused is the fusion's score, the order the pool comes in.
	Fused float64
}

// The features the built-in reranker reads, in the order of its weights.
// Each is computed at query time from the pool and the query's reading;
// none needs a second index.
const (
	fFused      = iota // the fusion's score: the order the pool comes in
	fKW                // keyword score / pool best
	fDense             // dense cosine, min-max over the pool (0 for keywords only)
	fFusedRank         // 1/(1+rank) in the fused order
	fCoverage          // idf-weighted share of the query's words the text holds
	fHeadCov           // the same over the title and heading path
	fAll               // 1 when the text holds every query word
	fProximity         // words held / the shortest span holding them (two or more)
	fPhrase            // share of the query's neighbouring words that are neighbours in the text
	fLength            // log of the passage's words
	fNotePool          // how many pool passages its note has (log)
	fNoteBest          // 1 for the best-fused passage of its note
	fNoteCov           // coverage by the note: its title and all its pool passages
	fNoteRank          // 1/(1+rank) among its note's pool passages, in the fused order
	fNoteTop           // its note's best fused score
	NumFeatures        // how many features there are
)

// featureNames name the features in the fitted model's file and in
// --explain.
var featureNames = [NumFeatures]string{"fused", "kw", "dense", "fused_rank", "coverage", "head_coverage", "all_words", "proximity", "phrase", "length", "note_pool", "note_best", "note_coverage", "note_rank", "note_top"}

// FeatureFused is the index of the fused score among the features: the
// fitting program's prior.
const FeatureFused = fFused

// FeatureNames returns the rerank features' names in weight order.
func FeatureNames() []string { return featureNames[:] }

// concept is one word of the query with its translations: a passage holds
// it when it holds any of their stems.
type concept struct {
	word string
	idf  float64
}

// queryConcepts are the query's words as the reranker matches them:
// stems per language (the vault's and the query's), each mapping to the
// bit of its query word.
type queryConcepts struct {
	words []concept
	langs []lang.Lang
	stems map[lang.Lang]map[string]uint64
	// first holds the first byte of every stem: a passage word that
	// starts otherwise cannot match, and is not stemmed.
	first [256]bool
	cache map[string]wordInfo
}

// wordInfo is what the reranker knows of a text word, kept per query:
// texts repeat their words, and stemming is the stage's main cost.
type wordInfo struct {
	mask uint64 // the query words it stands for
	stop bool   // a stop word in every language of the vault
}

// maxConcepts bounds the query words the reranker tells apart (a bit each).
const maxConcepts = 64

func (s *Searcher) concepts(ctx context.Context, t Terms) queryConcepts {
	q := queryConcepts{langs: t.langs, stems: map[lang.Lang]map[string]uint64{}, cache: map[string]wordInfo{}}
	if len(q.langs) == 0 {
		q.langs = []lang.Lang{lang.English}
	}
	index := map[string]int{}
	add := func(l lang.Lang, w string, bit int) {
		if utf8.RuneCountInString(w) < 2 || lang.IsStop(l, w) {
			return
		}
		st := lang.Fold(lang.Stem(l, w))
		if st == "" {
			return
		}
		if q.stems[l] == nil {
			q.stems[l] = map[string]uint64{}
		}
		q.stems[l][st] |= 1 << bit
		q.first[st[0]] = true
	}
	stopEverywhere := func(w string) bool {
		for _, l := range q.langs {
			if !lang.IsStop(l, w) {
				return false
			}
		}
		return true
	}
	for _, w := range lang.Words(t.Query) {
		if _, ok := index[w]; ok || utf8.RuneCountInString(w) < 2 || stopEverywhere(w) || len(q.words) == maxConcepts {
			continue
		}
		index[w] = len(q.words)
		q.words = append(q.words, concept{word: w})
		for _, l := range q.langs {
			add(l, w, index[w])
		}
	}
	for _, tr := range t.Translations {
		bit, ok := index[strings.ToLower(tr.Source)]
		if !ok {
			continue
		}
		for _, w := range lang.Words(tr.Text) {
			add(lang.Parse(tr.Lang), w, bit)
		}
	}
	// idf from the keyword index: how rare each word (with its
	// translations, as the index matched them) is in this vault.
	for i := range q.words {
		n, all, err := s.Frequency(ctx, q.words[i].word)
		if err != nil {
			n, all = 0, 1
		}
		q.words[i].idf = math.Log(1 + (float64(all-n)+0.5)/(float64(n)+0.5))
	}
	return q
}

// word returns what the reranker knows of a text word.
func (q *queryConcepts) word(w string) wordInfo {
	if in, ok := q.cache[w]; ok {
		return in
	}
	var in wordInfo
	f := lang.Fold(w)
	if f != "" && q.first[f[0]] {
		for _, l := range q.langs {
			if st := q.stems[l]; st != nil {
				in.mask |= st[lang.Fold(lang.Stem(l, w))]
			}
		}
	}
	in.stop = in.mask == 0 && q.stopEverywhere(w)
	q.cache[w] = in
	return in
}

// textMatch is what one text holds of the query: the words' masks in
// order (stop words left out, so "table of contents" keeps its words
// neighbours) and their union.
type textMatch struct {
	masks []uint64
	held  uint64
	words int
}

func (q *queryConcepts) match(text string) textMatch {
	var tm textMatch
	for _, w := range lang.Words(text) {
		tm.words++
		if utf8.RuneCountInString(w) < 2 {
			continue
		}
		in := q.word(w)
		if in.stop {
			continue
		}
		tm.masks = append(tm.masks, in.mask)
		tm.held |= in.mask
	}
	return tm
}

func (q *queryConcepts) stopEverywhere(w string) bool {
	for _, l := range q.langs {
		if !lang.IsStop(l, w) {
			return false
		}
	}
	return true
}

// share is the idf-weighted share of the query words in held.
func (q *queryConcepts) share(held uint64) float64 {
	var have, all float64
	for i, c := range q.words {
		all += c.idf
		if held&(1<<i) != 0 {
			have += c.idf
		}
	}
	if all == 0 {
		return 0
	}
	return have / all
}

// proximity is how many query words the text holds over the shortest run
// of its words holding all of them: 1 when they stand side by side, 0
// when fewer than two are held.
func proximity(tm textMatch) float64 {
	need := tm.held
	n := popcount(need)
	if n < 2 {
		return 0
	}
	best := math.MaxInt
	count := map[int]int{}
	have := 0
	lo := 0
	for hi, m := range tm.masks {
		for b := m; b != 0; b &= b - 1 {
			bit := trailing(b)
			if count[bit] == 0 {
				have++
			}
			count[bit]++
		}
		for have == n {
			if hi-lo+1 < best {
				best = hi - lo + 1
			}
			for b := tm.masks[lo]; b != 0; b &= b - 1 {
				bit := trailing(b)
				count[bit]--
				if count[bit] == 0 {
					have--
				}
			}
			lo++
		}
	}
	if best == math.MaxInt {
		return 0
	}
	return min(1, float64(n)/float64(best)) // one word can stand for two
}

// phrase is the share of the query's neighbouring word pairs (in query
// order) that stand as neighbours, in that order, somewhere in the text.
func phrase(tm textMatch, words int) float64 {
	if words < 2 {
		return 0
	}
	found := 0
	for i := 0; i+1 < words; i++ {
		a, b := uint64(1)<<i, uint64(1)<<(i+1)
		for j := 0; j+1 < len(tm.masks); j++ {
			if tm.masks[j]&a != 0 && tm.masks[j+1]&b != 0 {
				found++
				break
			}
		}
	}
	return float64(found) / float64(words-1)
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func trailing(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// features computes every candidate's features, in the pool's order.
func (s *Searcher) features(ctx context.Context, t Terms, cs []Candidate) [][NumFeatures]float64 {
	q := s.concepts(ctx, t)
	out := make([][NumFeatures]float64, len(cs))
	perNote := map[string]int{}
	for _, c := range cs {
		perNote[c.Path]++
	}
	inNote := map[string]int{}
	noteTop := map[string]float64{}
	all := uint64(1)<<len(q.words) - 1
	noteHeld := map[string]uint64{}
	bodies := make([]textMatch, len(cs))
	heads := make([]textMatch, len(cs))
	for i, c := range cs {
		bodies[i] = q.match(c.Text)
		heads[i] = q.match(c.Title + "\n" + c.Breadcrumb())
		noteHeld[c.Path] |= bodies[i].held | heads[i].held
		noteTop[c.Path] = max(noteTop[c.Path], c.Fused)
	}
	for i, c := range cs {
		x := &out[i]
		x[fFused] = c.Fused
		x[fNoteCov] = q.share(noteHeld[c.Path])
		x[fKW] = c.KW
		x[fDense] = c.Dense
		x[fFusedRank] = 1 / float64(1+i)
		body, head := bodies[i], heads[i]
		x[fCoverage] = q.share(body.held)
		x[fHeadCov] = q.share(head.held)
		if len(q.words) > 0 && (body.held|head.held) == all {
			x[fAll] = 1
		}
		x[fProximity] = proximity(body)
		x[fPhrase] = phrase(body, len(q.words))
		x[fLength] = math.Log1p(float64(body.words))
		x[fNotePool] = math.Log(float64(perNote[c.Path]))
		r := inNote[c.Path]
		inNote[c.Path]++
		if r == 0 {
			x[fNoteBest] = 1
		}
		x[fNoteRank] = 1 / float64(1+r)
		x[fNoteTop] = noteTop[c.Path]
	}
	return out
}

// Model is a linear reranker: each feature standardised by the training
// data's mean and spread, weighted and summed.
type Model struct {
	Mean, Scale, Weight [NumFeatures]float64
	// Depth is how many of the fused pool's first passages the model
	// reorders (0: all); the rest keep the fused order after them.
	Depth int
	// ByNote: the model orders notes, not the passages inside one. Each
	// note keeps the places the model gives its passages, filled with
	// them in the fused order.
	ByNote bool
}

// Rank orders a pool (features and each passage's note, in the fused
// order) by the model: the indexes of the pool, best first, and the
// score of each place.
func (m *Model) Rank(xs [][NumFeatures]float64, paths []string) ([]int, []float64) {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	head := idx
	if m.Depth > 0 && m.Depth < len(idx) {
		head = idx[:m.Depth]
	}
	score := make([]float64, len(head))
	for i := range head {
		score[i] = m.Score(xs[i])
	}
	sort.SliceStable(head, func(a, b int) bool { return score[head[a]] > score[head[b]] })
	scores := make([]float64, len(head))
	for r, i := range head {
		scores[r] = score[i]
	}
	if m.ByNote {
		byNote := map[string][]int{}
		for i := range head { // head's indexes are 0..len(head)-1
			byNote[paths[i]] = append(byNote[paths[i]], i)
		}
		for r, i := range head {
			p := paths[i]
			head[r], byNote[p] = byNote[p][0], byNote[p][1:]
		}
	}
	return idx, scores
}

// Score is the model's score of one candidate's features.
func (m *Model) Score(x [NumFeatures]float64) float64 {
	s := 0.0
	for i := range x {
		if m.Scale[i] > 0 {
			s += m.Weight[i] * (x[i] - m.Mean[i]) / m.Scale[i]
		}
	}
	return s
}

// model is the reranker for a channel, nil for none: the dense channel is
// left as it ranks (it measures the embedder alone).
func (s *Searcher) model(ch Channel) *Model {
	if s.Rerank == "" || s.Rerank == RerankOff {
		return nil
	}
	switch ch {
	case BM25, "":
		return &keywordsModel
	case Hybrid:
		return &hybridModel
	}
	return nil
}

// Endpoint is a reranker model server (package rerank): one score per
// text, and whether it runs off this machine.
type Endpoint interface {
	Rerank(ctx context.Context, query string, texts []string) ([]float64, error)
	Remote() bool
}

// rerank reorders the pool: by the endpoint when one is configured and
// may see the pool, else by the built-in model. It returns a warning when
// the endpoint was asked for but the built-in model answered.
func (s *Searcher) rerank(ctx context.Context, t Terms, cs []Candidate, m *Model) string {
	if s.Rerank != RerankEndpoint || len(cs) == 0 {
		s.rescore(ctx, t, cs, m)
		return ""
	}
	if s.Endpoint == nil {
		s.rescore(ctx, t, cs, m)
		return "no reranker endpoint is configured (rerank:): the built-in reranker ordered the results"
	}
	if s.Endpoint.Remote() && s.Private != nil {
		for _, c := range cs {
			if s.Private(c.Path) {
				s.rescore(ctx, t, cs, m)
				return "private notes are among the results and the reranker endpoint is not on this machine: the built-in reranker ordered them"
			}
		}
	}
	texts := make([]string, len(cs))
	for i, c := range cs {
		texts[i] = c.Title + "\n" + c.Text
	}
	scores, err := s.Endpoint.Rerank(ctx, t.Query, texts)
	if err != nil || len(scores) != len(cs) {
		s.rescore(ctx, t, cs, m)
		if err == nil {
			err = fmt.Errorf("%d scores for %d passages", len(scores), len(cs))
		}
		return "reranker endpoint failed, the built-in reranker ordered the results: " + err.Error()
	}
	order(cs, scores)
	return ""
}

// rescore reorders the pool by the model, the fused order breaking ties.
func (s *Searcher) rescore(ctx context.Context, t Terms, cs []Candidate, m *Model) {
	xs := s.features(ctx, t, cs)
	paths := make([]string, len(cs))
	for i, c := range cs {
		paths[i] = c.Path
	}
	idx, scores := m.Rank(xs, paths)
	// Past the model's depth the passages keep their fused scores.
	out := make([]Candidate, len(cs))
	for r, i := range idx {
		out[r] = cs[i]
		if r < len(scores) {
			out[r].Score = scores[r]
		}
	}
	copy(cs, out)
}

// order sorts the pool by scores, best first, the pool's order breaking
// ties, and keeps each passage's score.
func order(cs []Candidate, scores []float64) {
	idx := make([]int, len(cs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	out := make([]Candidate, len(cs))
	for i, j := range idx {
		out[i] = cs[j]
		out[i].Score = scores[j]
	}
	copy(cs, out)
}

// Pool is a fused pool with its features, for fitting a model.
type Pool struct {
	Candidates []Candidate
	Features   [][NumFeatures]float64
}

// PoolFeatures returns the fused pool for query on the channel, in fused
// order, with the features the built-in reranker reads: what the fitting
// program (internal/fitrerank) learns from.
func (s *Searcher) PoolFeatures(ctx context.Context, query string, ch Channel) (Pool, error) {
	t := s.Terms(query)
	cs, err := s.candidates(ctx, t, s.poolSize(0), ch, Filter{})
	if err != nil {
		return Pool{}, err
	}
	return Pool{Candidates: cs, Features: s.features(ctx, t, cs)}, nil
}
