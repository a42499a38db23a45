// Package search ranks passages for a query across the retrieval
// channels: keywords (BM25), meaning (dense vectors) and their fusion.
package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/bm25"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/lang/syn"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/source"
)

// Channel selects the retrieval channel.
type Channel string

// The channels. Hybrid is the default once dense retrieval exists.
const (
	BM25   Channel = "bm25"
	Dense  Channel = "dense"
	Hybrid Channel = "hybrid"
)

// ErrUnavailable is returned for a channel this build cannot serve.
var ErrUnavailable = errors.New("channel unavailable")

// ParseChannel checks a channel name from the command line or the wire.
func ParseChannel(s string) (Channel, error) {
	switch Channel(s) {
	case BM25, Dense, Hybrid:
		return Channel(s), nil
	}
	return "", fmt.Errorf("unknown channel %q (want bm25, dense or hybrid)", s)
}

// Default is the channel used when none is named: hybrid once some
// passages have vectors, else keywords.
func Default(vectors int) Channel {
	if vectors > 0 {
		return Hybrid
	}
	return BM25
}

// Passage is one ranked passage.
type Passage struct {
	ID    string `json:"id"`
	Path  string `json:"path"`
	Title string `json:"title"`
	// Headings is the heading path above the passage, outermost first,
	// without a top heading that repeats Title; empty (never nil from a
	// search) above the first heading. Its JSON name is the wire's.
	Headings []string `json:"headingPath"`
	Start    int      `json:"start"`
	End      int      `json:"end"`
	// Page is the page of a PDF's passage (1-based), 0 for a note's.
	Page  int     `json:"page,omitempty"`
	Text  string  `json:"text"`
	Score float64 `json:"score"`
}

// MarshalJSON writes the passage as every front end shows it: its
// source's id ("vault" for the vault) and its path inside that source,
// where Path is the key naming it across sources ("ops:runbooks/a.md").
func (p Passage) MarshalJSON() ([]byte, error) {
	type plain Passage
	src, rel := source.Split(p.Path)
	return json.Marshal(struct {
		Source string `json:"source"`
		plain
		Path string `json:"path"`
	}{src, plain(p), rel})
}

// Breadcrumb is the passage's place as one line: "Title › H1 › H2".
func (p Passage) Breadcrumb() string { return markdown.Breadcrumb(p.Title, p.Headings) }

// Place is where the passage is, as a person is shown it: the breadcrumb,
// and a PDF's page ("Manual › Setup, page 12").
func (p Passage) Place() string {
	if p.Page > 0 {
		return p.Breadcrumb() + ", page " + strconv.Itoa(p.Page)
	}
	return p.Breadcrumb()
}

// DenseIndex finds passages by meaning.
type DenseIndex interface {
	SearchDense(ctx context.Context, query string, n int) ([]index.DenseHit, error)
}

// Fusion combines the channels' scores, each normalised over its pool of
// Pool passages: BM25 divided by the pool's best, cosine min-max scaled,
// then weighted and summed. Scores, unlike ranks, keep how much better
// the first keyword hit is than the fifth, so a weak dense channel cannot
// push a strong keyword match out of the top results; reciprocal rank
// fusion did exactly that on the dev set (README, "Figures").
type Fusion struct {
	BM25, Dense float64
	Pool        int
}

// DefaultFusion was chosen on the dev set (README, "Figures").
var DefaultFusion = Fusion{BM25: 1, Dense: 0.25, Pool: 50}

// normalise scales each channel's scores over its pool: BM25 over the
// pool's best, cosine min-max.
func (f Fusion) normalise(kw []bm25.Hit, dh []index.DenseHit) (kwNorm, denseNorm map[string]float64) {
	kwNorm, denseNorm = map[string]float64{}, map[string]float64{}
	if len(kw) > 0 && kw[0].Score > 0 {
		top := kw[0].Score
		for _, h := range kw {
			kwNorm[h.ID] = h.Score / top
		}
	}
	if len(dh) > 1 {
		hi, lo := float64(dh[0].Score), float64(dh[len(dh)-1].Score)
		for _, h := range dh {
			if hi > lo {
				denseNorm[h.ID] = (float64(h.Score) - lo) / (hi - lo)
			}
		}
	}
	return kwNorm, denseNorm
}

// fuse weighs and sums the normalised scores.
func (f Fusion) fuse(kwNorm, denseNorm map[string]float64) map[string]float64 {
	score := make(map[string]float64, len(kwNorm)+len(denseNorm))
	for id, v := range kwNorm {
		score[id] += f.BM25 * v
	}
	for id, v := range denseNorm {
		score[id] += f.Dense * v
	}
	return score
}

// Searcher answers queries over the indexes it is given.
type Searcher struct {
	BM25 *bm25.Index
	// Dense is nil when no embedder is configured.
	Dense  DenseIndex
	Fusion Fusion
	// Langs lists the languages of the vault's notes; queries are
	// translated into those that have a word list with the query's.
	Langs []string
	// Synonyms, when not nil, adds WordNet's related words to English
	// keyword queries (package syn; a zero Options means its defaults).
	// They only raise passages that the query's own words or their
	// translations find. Off by default: it changed no dev-set recall
	// (README, "Figures").
	Synonyms *syn.Options
	// Prefer multiplies the keyword scores of notes in the query's own
	// language, when it is known; 0 means DefaultPrefer, 1 none.
	Prefer float64
	// PerNote caps how many passages of one note come before every other
	// note's best has had its turn (see Diversify); 0 or less: no cap.
	PerNote int
	// Rerank reorders the pool before the cut: "" or RerankOff keeps the
	// fused order.
	Rerank Rerank
	// Endpoint is the configured reranker model server, used with Rerank
	// RerankEndpoint; nil: the built-in model answers.
	Endpoint Endpoint
	// Private reports whether a note is private: its passages never go to
	// an endpoint that is not on this machine.
	Private func(path string) bool
	// Embedded reports whether a note has vectors (Far); nil: every note.
	Embedded func(path string) bool
	// Floor is the cosine below which a passage that only the dense
	// channel found is no match at all (see Floor); nil: no floor.
	Floor *Floor
	// Successors returns the note that replaces a superseded one
	// (index.Successions): the successor's best passage comes before the
	// superseded note's, whatever Rerank says (no dev corpus has a
	// superseded note, so the measured order is the same either way).
	// Nil: no note is superseded.
	Successors func(path string) (next string, ok bool)
	// DateOf returns when a note last changed and the day it is about
	// (zero when not known; see index.Entry): a question about the state
	// now, or about a span of days, puts the notes it asks for first (see
	// dateOrder). Nil: no note is dated.
	DateOf func(path string) (updated, dated time.Time)
	// Hub reports whether a note is a hub (IsHub), and Hubs lists the
	// vault's hubs, the main one first: what overview questions are
	// answered with (hubOrder). Hubs is called only when a question needs
	// the whole list (none of the pool's hubs holds its words), since it
	// reads every note. Nil: none are known.
	Hub  func(path string) bool
	Hubs func() []string
	// Now is today for questions about time ("last week"); nil: time.Now.
	Now func() time.Time
}

// New returns a Searcher over the keyword index with the settings of
// config.yaml's search section; set Dense when vectors exist. The keyword
// index's own field weights are set once, by whoever opens it
// (FieldWeights), not with every Searcher.
func New(kw *bm25.Index, langs []string, c config.Search) *Searcher {
	f := DefaultFusion
	f.Dense = c.DenseWeight
	if c.Pool > 0 {
		f.Pool = c.Pool
	}
	return &Searcher{BM25: kw, Langs: langs, Synonyms: SynonymsIf(c.Synonyms), Prefer: c.PreferLanguage, PerNote: c.PerNote, Fusion: f, Rerank: Rerank(c.Rerank)}
}

// FieldWeights are the keyword index's field weights of config.yaml's
// search section (search.fields, search.coordination).
func FieldWeights(c config.Search) bm25.FieldWeights {
	return bm25.FieldWeights{Title: c.Fields.Title, Aliases: c.Fields.Aliases, Headings: c.Fields.Headings, Separate: c.Fields.Separate, ByField: c.Coordination == "fields", Exact: c.Fields.Exact}
}

// SynonymsIf is Searcher.Synonyms for the config switch: the defaults when
// on, nil when off.
func SynonymsIf(on bool) *syn.Options {
	if !on {
		return nil
	}
	return &syn.Options{}
}

// Search returns up to k passages for query from the channel.
func (s *Searcher) Search(ctx context.Context, query string, k int, ch Channel) ([]Passage, error) {
	r, err := s.Query(ctx, query, k, ch)
	return r.Passages, err
}

// Result is a search's answer and how it was reached.
type Result struct {
	Passages []Passage
	// Channel is the channel that answered: bm25 when the embedder failed.
	Channel Channel
	// Warning says why the answer is not what was asked for.
	Warning string
	// Terms is how the search read the query: a front end marks the
	// words it matched from them (Terms.Matcher) without reading the
	// query again.
	Terms Terms
}

// Filter narrows a search to one folder and one tag (see bm25.Filter).
type Filter = bm25.Filter

// Term is a word or phrase the keyword channel searches (see bm25.Term):
// a translation or a looser form of the query's words.
type Term = bm25.Term

// NormalTag is a tag as filters compare it: without "#" and trailing
// slashes, in lower case.
func NormalTag(t string) string { return bm25.NormalTag(t) }

// Query is Search that survives a missing or failing embedder: a query
// for a channel that needs one answers from keywords alone, and says so
// (Request.Strict).
func (s *Searcher) Query(ctx context.Context, query string, k int, ch Channel) (Result, error) {
	return s.Do(ctx, Request{Text: query, K: k, Channel: ch})
}

// QueryFiltered is Query over the passages that pass f only. The filter
// is applied before the cut to k, in every channel, so k passages come
// back whenever k passing passages match.
func (s *Searcher) QueryFiltered(ctx context.Context, query string, k int, ch Channel, f Filter) (Result, error) {
	return s.Do(ctx, Request{Text: query, K: k, Channel: ch, Filter: f})
}

// Request is one search with every option; Query and QueryFiltered are
// its short forms.
type Request struct {
	Text string
	K    int
	// Channel is "" for the best the searcher serves: hybrid with an
	// embedder, else keywords.
	Channel Channel
	Filter  Filter
	// Typing says the query may still be being typed in a search box:
	// its last word also finds the words it begins.
	Typing bool
	// Strict makes a channel that needs an embedder, when none is
	// configured, an error wrapping ErrUnavailable instead of keyword
	// results with a warning: a command asked for that channel by name.
	// An embedder that fails a hybrid query still gives way to keywords.
	Strict bool
}

// Do runs the search r. Whether a channel that needs an embedder gives
// way to keywords is decided here and nowhere else, in one wording
// (keywordsOnly): with no embedder configured (unless r.Strict), and for
// a hybrid query whose embedder fails. A query for meaning alone whose
// embedder fails returns the error.
//
// The query is read (its language detected, its words translated) once,
// before any channel runs: the fall back to keywords and the result's
// marks use the same reading.
func (s *Searcher) Do(ctx context.Context, r Request) (Result, error) {
	ch := r.Channel
	if ch == "" {
		ch = s.best()
	}
	if ch != BM25 && s.Dense == nil && r.Strict {
		// Before reading the query: nothing is searched.
		return Result{Channel: ch}, fmt.Errorf("%w: the %s channel needs an embedder, and none is configured; use --channel bm25", ErrUnavailable, ch)
	}
	t := s.TermsTyped(r.Text, r.Typing)
	var why string
	if ch != BM25 && s.Dense == nil {
		why = "none is configured"
	} else {
		ps, warn, err := s.search(ctx, t, r.K, ch, r.Filter)
		if err == nil || ch != Hybrid || ctx.Err() != nil {
			return Result{Passages: ps, Channel: ch, Terms: t, Warning: warn}, err
		}
		why = err.Error()
	}
	ps, warn, err := s.search(ctx, t, r.K, BM25, r.Filter)
	if err != nil {
		return Result{}, err
	}
	w := keywordsOnly(why)
	if warn != "" {
		w += "; " + warn
	}
	return Result{Passages: ps, Channel: BM25, Warning: w, Terms: t}, nil
}

// best is the channel a request that names none gets: hybrid with an
// embedder, else keywords, without a warning (a vault set up without an
// embedder is not a fault).
func (s *Searcher) best() Channel {
	if s.Dense == nil {
		return BM25
	}
	return Hybrid
}

// keywordsOnly is the warning of a search that gave way to keywords
// because the embedder could not serve, and why.
func keywordsOnly(why string) string {
	return "embedder unavailable (" + why + "), showing keyword results"
}

// search ranks a pool of candidates on the channel, reranks it, then
// lets each note show at most PerNote passages before the others: every
// front end (the plugin, the CLI, MCP, ask's context) sees the same
// diverse top k.
func (s *Searcher) search(ctx context.Context, t Terms, k int, ch Channel, f Filter) (ps []Passage, warn string, err error) {
	cs, err := s.candidates(ctx, t, s.poolSize(k), ch, f)
	if err != nil {
		return nil, "", err
	}
	if m := s.model(ch); m != nil {
		warn = s.rerank(ctx, t, cs, m)
	}
	cs = s.dateOrder(ctx, t, cs)
	if cs, err = s.hubOrder(ctx, t, cs, f); err != nil {
		return nil, "", err
	}
	if cs, err = s.succeed(ctx, t, cs); err != nil {
		return nil, "", err
	}
	ps = make([]Passage, len(cs))
	for i, c := range cs {
		ps[i] = c.Passage
	}
	ps = Diversify(ps, s.PerNote)
	if len(ps) > k {
		ps = ps[:k]
	}
	return ps, warn, nil
}

// poolSize is how many candidates a search of k ranks before the cut.
func (s *Searcher) poolSize(k int) int {
	pool := s.Fusion.Pool
	if pool == 0 {
		pool = DefaultFusion.Pool
	}
	return max(k, pool)
}

// Diversify reorders ranked passages so that no note has more than per
// of them before every other note's passages have been placed: a passage
// past its note's quota moves behind the others, keeping its order. The
// result is a prefix-stable reordering: the first k are the same whatever
// length is asked for from the same pool.
func Diversify(ps []Passage, per int) []Passage {
	if per <= 0 {
		return ps
	}
	seen := map[string]int{}
	out := make([]Passage, 0, len(ps))
	var later []Passage
	for _, p := range ps {
		if seen[p.Path] < per {
			seen[p.Path]++
			out = append(out, p)
		} else {
			later = append(later, p)
		}
	}
	return append(out, later...)
}

// candidates returns up to n passages from the channel, best first, with
// the channels' normalised scores the rerank stage reads.
func (s *Searcher) candidates(ctx context.Context, t Terms, n int, ch Channel, f Filter) ([]Candidate, error) {
	switch ch {
	case BM25, "":
		hits, err := s.keyword(ctx, t, n, f)
		if err != nil {
			return nil, err
		}
		cs := make([]Candidate, len(hits))
		for i, p := range toPassages(hits) {
			cs[i] = Candidate{Passage: p, KW: p.Score / hits[0].Score}
			cs[i].Fused = cs[i].KW
		}
		return cs, nil
	}
	if ch == Dense {
		dh, err := s.dense(ctx, t.Query, n, f)
		if err != nil {
			return nil, err
		}
		dh, err = s.aboveFloor(ctx, dh)
		if err != nil {
			return nil, err
		}
		ps, err := s.load(ctx, dh, nil)
		cs := make([]Candidate, len(ps))
		for i, p := range ps {
			cs[i] = Candidate{Passage: p, Fused: p.Score}
		}
		return cs, err
	}
	fu := s.Fusion
	if fu.Pool == 0 {
		fu = DefaultFusion
	}
	pool := max(fu.Pool, n)
	kw, err := s.keyword(ctx, t, pool, f)
	if err != nil {
		return nil, err
	}
	dh, err := s.dense(ctx, t.Query, pool, f)
	if err != nil {
		return nil, err
	}
	// Normalised over the whole pool, so the floor leaves the scores of
	// the passages it keeps as they were.
	kwNorm, denseNorm := fu.normalise(kw, dh)
	floor, err := s.Floor.Cosine(ctx, s.Dense)
	if err != nil {
		return nil, err
	}
	for _, h := range dh {
		if _, byWords := kwNorm[h.ID]; !byWords && float64(h.Score) < floor {
			delete(denseNorm, h.ID)
		}
	}
	score := fu.fuse(kwNorm, denseNorm)
	ids := make([]string, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if score[ids[i]] != score[ids[j]] {
			return score[ids[i]] > score[ids[j]]
		}
		return ids[i] < ids[j]
	})
	if len(ids) > n {
		ids = ids[:n]
	}
	known := map[string]bm25.Hit{}
	for _, h := range kw {
		known[h.ID] = h
	}
	fused := make([]index.DenseHit, len(ids))
	for i, id := range ids {
		fused[i] = index.DenseHit{ID: id, Score: float32(score[id])}
	}
	ps, err := s.load(ctx, fused, known)
	if err != nil {
		return nil, err
	}
	cs := make([]Candidate, len(ps))
	for i, p := range ps {
		cs[i] = Candidate{Passage: p, KW: kwNorm[p.ID], Dense: denseNorm[p.ID], Fused: p.Score}
	}
	return cs, nil
}

func (s *Searcher) keyword(ctx context.Context, t Terms, k int, f Filter) ([]bm25.Hit, error) {
	// A copy: the synonyms must not reach the result's Terms.
	terms := append(slices.Clone(t.Translations), t.Near...)
	for _, sy := range s.synonyms(t.Lang, t.Query) {
		terms = append(terms, bm25.Term{Text: sy.Text, Lang: string(lang.English), Weight: sy.Weight, Boost: true})
	}
	query, err := s.compoundParts(ctx, t.Query, t.Lang)
	if err != nil {
		return nil, err
	}
	if f.IsZero() {
		return s.BM25.SearchPrefer(ctx, query, terms, s.prefer(t.Lang), k)
	}
	return s.BM25.SearchFiltered(ctx, query, terms, s.prefer(t.Lang), f, k)
}

// denseWiden is how much larger each next dense pool is when a filter
// left fewer than n passages, and denseMax bounds the pool: the vector
// store is searched whole at the last step anyway.
const (
	denseWiden = 4
	denseMax   = 1 << 16
)

// dense returns up to n passages by meaning that pass f. With a filter
// the nearest n may all lie outside it, so the pool widens until n pass,
// the store has no more, or the pool reaches denseMax.
func (s *Searcher) dense(ctx context.Context, query string, n int, f Filter) ([]index.DenseHit, error) {
	if f.IsZero() {
		return s.Dense.SearchDense(ctx, query, n)
	}
	for pool := n * denseWiden; ; pool *= denseWiden {
		pool = min(pool, denseMax)
		dh, err := s.Dense.SearchDense(ctx, query, pool)
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(dh))
		for _, h := range dh {
			if f.PassesPath(index.PassagePath(h.ID)) {
				ids = append(ids, h.ID)
			}
		}
		pass, err := s.BM25.Passing(ctx, ids, f)
		if err != nil {
			return nil, err
		}
		out := make([]index.DenseHit, 0, n)
		for _, h := range dh {
			if pass[h.ID] && len(out) < n {
				out = append(out, h)
			}
		}
		if len(out) == n || len(dh) < pool || pool == denseMax {
			return out, nil
		}
	}
}

// DefaultPrefer is how much a query prefers the notes in its own
// language: their keyword scores are multiplied by it. 1 is no
// preference: config search.prefer_language turns it on (README,
// "Figures").
const DefaultPrefer = 1

// prefer is the keyword channel's preference for the query's language:
// none when the language is unknown or the vault has one language only.
func (s *Searcher) prefer(from lang.Lang) bm25.Prefer {
	if from == lang.Unknown || len(s.Langs) < 2 {
		return bm25.Prefer{}
	}
	f := s.Prefer
	if f == 0 {
		f = DefaultPrefer
	}
	return bm25.Prefer{Lang: string(from), Factor: f}
}

// synonyms returns the WordNet words added to an English query, searched
// in English notes at lower weight than the user's own words.
func (s *Searcher) synonyms(from lang.Lang, query string) []syn.Term {
	if s.Synonyms == nil || from != lang.English {
		return nil
	}
	ts, err := syn.Expand(lang.Words(query), *s.Synonyms)
	if err != nil {
		return nil // a broken table: search the words as they are
	}
	return ts
}

// load turns ranked ids into passages, reading from the keyword index
// the ones not already at hand.
func (s *Searcher) load(ctx context.Context, ranked []index.DenseHit, known map[string]bm25.Hit) ([]Passage, error) {
	var missing []string
	for _, r := range ranked {
		if _, ok := known[r.ID]; !ok {
			missing = append(missing, r.ID)
		}
	}
	docs, err := s.BM25.Docs(ctx, missing)
	if err != nil {
		return nil, err
	}
	out := make([]Passage, 0, len(ranked))
	for _, r := range ranked {
		h, ok := known[r.ID]
		if !ok {
			if h, ok = docs[r.ID]; !ok {
				continue // a vector whose passage is gone: skip it
			}
		}
		h.Score = float64(r.Score)
		out = append(out, toPassages([]bm25.Hit{h})...)
	}
	return out, nil
}

func toPassages(hits []bm25.Hit) []Passage {
	out := make([]Passage, len(hits))
	for i, h := range hits {
		out[i] = Passage{ID: h.ID, Path: h.Path, Title: h.Title, Headings: h.Headings, Start: h.Start, End: h.End, Page: h.Page, Text: h.Text, Score: h.Score}
	}
	return out
}

// Terms is how a search reads its query: the query's language and the
// translations of its words searched beside them. A search reads its
// query once; the words a front end marks in its results come from the
// same reading (Result.Terms, Terms.Matcher), not from a second one.
type Terms struct {
	Query string
	// Lang is the query's language, lang.Unknown when unsure.
	Lang lang.Lang
	// Translations are the query's words in the vault's other languages,
	// searched at lower weight than the user's own words.
	Translations []bm25.Term
	// Near are the looser forms of the query's words (bm25.Term.Near):
	// the word being typed as a prefix, the other long words with a typo.
	// A passage holding the word itself scores it as before.
	Near []bm25.Term
	// langs are the vault's languages and the query's: a word is stemmed
	// in each of them when marking (Matcher).
	langs []lang.Lang
	// When is what the query says about time. A span's words ("last
	// week") are left out of Query: they say which days, not which words.
	When When
	// Overview is set when the query asks for a map of the notes (see
	// hubOrder).
	Overview bool
}

// The looser forms of a query's words (Terms.Near), below the word
// itself: a word of FuzzyMin letters or more matches a word one edit
// away, of FuzzyMin2 or more two edits away; the last word of a query
// being typed matches the words it begins. NearWeight scales what such
// a match scores.
const (
	FuzzyMin   = 5
	FuzzyMin2  = 8
	NearWeight = 0.25
)

// translate is lang.Translate; a test counts the calls through it.
var translate = lang.Translate

// Terms detects the query's language and translates its words into the
// vault's other languages: a non-English query into English, an English
// one into each other language present. The user's own words are searched
// as they are; the translations come on top at lower weight, and so do
// their typo forms (Terms.Near).
func (s *Searcher) Terms(query string) Terms { return s.TermsTyped(query, false) }

// TermsTyped is Terms for a query still being typed: its last word is
// also searched as the beginning of a word.
func (s *Searcher) TermsTyped(query string, typing bool) Terms {
	t := Terms{Query: query, Lang: lang.Detect(query), langs: s.vaultLangs(), When: ReadWhen(query, s.now()), Overview: ReadOverview(query)}
	if t.When.Span() {
		if rest := strings.Replace(query, t.When.Phrase, " ", 1); len(lang.Words(rest)) > 0 {
			t.Query = rest
		}
	}
	t.Near = near(t.Query, t.Lang, typing)
	for _, p := range s.passes(query, t.Lang, t.langs) {
		ts, err := translate(p.text, p.from, p.to, lang.Options{})
		if err != nil {
			continue // no word list for the pair: search the words as they are
		}
		for _, w := range ts {
			if w.Via != lang.ViaKept {
				t.Translations = append(t.Translations, bm25.Term{Text: w.Text, Lang: string(p.to), Weight: w.Weight, Source: w.Source})
			}
		}
	}
	if t.Lang != lang.Unknown && !slices.Contains(t.langs, t.Lang) {
		t.langs = append(t.langs, t.Lang)
	}
	return t
}

func (s *Searcher) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// near returns the looser forms of the query's words: a stop word of the
// query's language has none.
func near(query string, ql lang.Lang, typing bool) []bm25.Term {
	words := lang.Words(query)
	var out []bm25.Term
	for i, w := range words {
		if ql != lang.Unknown && lang.IsStop(ql, w) {
			continue
		}
		f := lang.Fold(w)
		n := utf8.RuneCountInString(f)
		switch {
		case typing && i == len(words)-1:
			out = append(out, bm25.Term{Text: f, Source: w, Weight: NearWeight, Near: bm25.NearPrefix})
		case n >= FuzzyMin2:
			out = append(out, bm25.Term{Text: f, Source: w, Weight: NearWeight, Near: bm25.NearFuzzy, Edits: 2})
		case n >= FuzzyMin:
			out = append(out, bm25.Term{Text: f, Source: w, Weight: NearWeight, Near: bm25.NearFuzzy, Edits: 1})
		}
	}
	return out
}

// Frequency returns how many passages hold any word of text, and how
// many passages the index has (the keyword index's count).
func (s *Searcher) Frequency(ctx context.Context, text string) (matched, total int, err error) {
	m, t, err := s.BM25.Holding(ctx, text)
	return int(m), int(t), err
}

// Explain says how a query is read: its language, the synonyms and the
// translations used.
func (s *Searcher) Explain(query string) string {
	from := lang.Detect(query)
	vault := s.vaultLangs()
	var b strings.Builder
	if from == lang.Unknown {
		b.WriteString("query language: unknown\n")
		var read []string
		for _, r := range lang.ReadWords(query, vault) {
			read = append(read, r.Word+" ("+string(r.From)+")")
		}
		if len(read) > 0 {
			fmt.Fprintf(&b, "words read by the word lists: %s\n", strings.Join(read, ", "))
		}
	} else {
		fmt.Fprintf(&b, "query language: %s\n", from)
	}
	if ts := s.synonyms(from, query); len(ts) > 0 {
		b.WriteString("synonyms (English notes):\n")
		b.WriteString(syn.String(ts))
		b.WriteString("\n")
	}
	for _, p := range s.passes(query, from, vault) {
		e, err := lang.Explain(p.text, p.from, p.to, lang.Options{})
		if err == nil {
			b.WriteString(e.String())
			b.WriteString("\n")
		}
	}
	w := ReadWhen(query, s.now())
	if w.Span() {
		fmt.Fprintf(&b, "dates: %q is %s to %s; notes dated then come first, and those words are not searched\n", w.Phrase, w.From.Format(time.DateOnly), w.To.AddDate(0, 0, -1).Format(time.DateOnly))
	}
	if w.Current {
		b.WriteString("asks about now: of notes that match alike, the one changed last comes first\n")
	}
	if ReadOverview(query) {
		var hubs []string
		if s.Hubs != nil {
			hubs = s.Hubs()
		}
		main := "none"
		if len(hubs) > 0 {
			main = hubs[0]
		}
		fmt.Fprintf(&b, "asks for an overview: hub notes that hold its words come first, else the main hub (%s) among the first three; %d hubs in the vault\n", main, len(hubs))
	}
	return b.String()
}

// Warm prepares the word lists that short queries over the vault's
// languages read (lang.WarmReading) and measures the dense floor, so
// that the first keystroke in a search box waits for neither. Call it in
// a goroutine.
func (s *Searcher) Warm() {
	lang.WarmReading(s.vaultLangs())
	_, _ = s.Floor.Cosine(context.Background(), s.Dense) // a failure shows on the first search
}

// vaultLangs parses Langs, without repeats.
func (s *Searcher) vaultLangs() []lang.Lang {
	var out []lang.Lang
	for _, code := range s.Langs {
		if l := lang.Parse(code); l != lang.Unknown && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// pass is one translation a query's reading needs: text from one
// language into another.
type pass struct {
	text     string
	from, to lang.Lang
}

// passes lists the translations of a query in language from into the
// vault's languages. A query whose language is unknown (a word or two, a
// name, words of two languages alike) is not translated as a whole: the
// wrong word list only adds noise. Its words are read one by one instead
// (lang.ReadWords): a word that only one of the vault's languages has in
// its word list is translated from that language, so "tomatoes" finds
// the Czech note on rajčata and "chleb" the English one on bread; a word
// that two know alike, a stop word or a short word is searched as it is.
// The translations keep their usual weights, and their clauses are the
// same (one per language and weight) as a detected query's.
func (s *Searcher) passes(query string, from lang.Lang, vault []lang.Lang) []pass {
	var out []pass
	if from != lang.Unknown {
		for _, to := range s.targets(from) {
			out = append(out, pass{query, from, to})
		}
		return out
	}
	words := map[lang.Lang][]string{}
	var order []lang.Lang
	for _, r := range lang.ReadWords(query, vault) {
		if _, ok := words[r.From]; !ok {
			order = append(order, r.From)
		}
		words[r.From] = append(words[r.From], r.Word)
	}
	for _, l := range order {
		for _, to := range s.targets(l) {
			out = append(out, pass{strings.Join(words[l], " "), l, to})
		}
	}
	return out
}

func (s *Searcher) targets(from lang.Lang) []lang.Lang {
	var out []lang.Lang
	for _, l := range s.Langs {
		to := lang.Parse(l)
		if to == lang.Unknown || to == from {
			continue
		}
		if from == lang.English || to == lang.English {
			out = append(out, to)
		}
	}
	return out
}
