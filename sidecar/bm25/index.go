// Package bm25 owns the keyword index: a Bleve index on disk scored with
// BM25, with per-language analyzers, fed one document per passage.
package bm25

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// Doc is one passage as the keyword index sees it.
type Doc struct {
	ID      string // "<path>#<n>"
	Path    string
	Lang    string
	Title   string
	Aliases []string
	Tags    []string
	// Headings is the heading path shown with the passage, outermost
	// first, stored as a list.
	Headings []string
	// HeadingText is the words searched as headings: the heading path
	// and the headings inside the passage, plain text.
	HeadingText string
	Body        string // the passage, markup removed
	Text        string // the passage's raw Markdown, returned by search
	Start       int
	End         int
	// Page is the page a PDF's passage starts on (1-based); 0 for a note.
	Page int
}

// Hit is one passage found by a search.
type Hit struct {
	ID, Path, Title, Text string
	Headings              []string // never nil
	Start, End            int
	Page                  int // a PDF passage's page, 0 for a note
	Score                 float64
}

// Index is the Bleve index. Bleve locks its folder: one process at a time.
type Index struct {
	b bleve.Index

	// families are the analyzer families of the notes indexed (or once
	// indexed): a query searches only their fields, not the fields of
	// thirty languages the vault does not use.
	famMu    sync.RWMutex
	families map[string]bool

	weights atomic.Pointer[FieldWeights]
}

// FieldWeights weigh a match in a note's title, aliases and headings
// against one in a passage's body (1); 0 leaves the field out of the
// query.
type FieldWeights struct {
	Title, Aliases, Headings float64
	// Separate requires a match in the passage's body and scores the
	// title, headings and aliases as optional clauses beside it, under
	// their own coordination factor. Bleve multiplies a disjunction's
	// summed score by the share of its clauses that matched, so with one
	// disjunction of every field a title match (on every passage of its
	// note) also multiplies each passage's body score. It applies with
	// ByField only.
	Separate bool
	// ByField builds the query as one disjunction of a clause per field
	// and language, whose coordination factor counts the clauses a
	// passage matched, instead of one group per query word (wordsQuery).
	ByField bool
	// Exact weighs a query word's exact tokens (ExactTokens) matched
	// whole in a passage, added to the word's score; the words query
	// only (not ByField).
	Exact float64
}

// DefaultFieldWeights: headings already appear in the passage body, so
// their own field counts half. Checked on both dev sets: lower title and
// heading weights help a vault of translated pages but cost cross-lingual
// questions, whose translated words meet titles (README, "Figures").
var DefaultFieldWeights = FieldWeights{Title: 1, Aliases: 1, Headings: 0.5, Exact: 1}

// SetFieldWeights sets the weights later queries use.
func (x *Index) SetFieldWeights(w FieldWeights) { x.weights.Store(&w) }

func (x *Index) fieldWeights() FieldWeights {
	if p := x.weights.Load(); p != nil {
		return *p
	}
	return DefaultFieldWeights
}

// Open opens the index in dir, creating it when the folder does not exist.
func Open(dir string) (*Index, error) {
	b, err := bleve.Open(dir)
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		m, merr := newMapping()
		if merr != nil {
			return nil, fmt.Errorf("bm25 mapping: %w", merr)
		}
		b, err = bleve.New(dir, m)
	}
	if err != nil {
		return nil, fmt.Errorf("open bm25 index %s: %w", dir, err)
	}
	x := &Index{b: b, families: map[string]bool{generic: true}}
	langs, err := b.FieldDict("lang")
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("open bm25 index %s: %w", dir, err)
	}
	defer langs.Close()
	for {
		e, err := langs.Next()
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("open bm25 index %s: %w", dir, err)
		}
		if e == nil {
			break
		}
		x.families[fieldLang(e.Term)] = true
	}
	return x, nil
}

func newMapping() (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	if err := addAnalyzers(m); err != nil {
		return nil, err
	}
	doc := bleve.NewDocumentStaticMapping()
	text := func(analyzer string, store bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = store
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	for _, family := range familyNames {
		a := analyzerName(family)
		for _, field := range []string{"title", "headings", "body"} {
			doc.AddFieldMappingsAt(field+"_"+family, text(a, false))
		}
	}
	doc.AddFieldMappingsAt("aliases", text(analyzerName(generic), false))
	for _, f := range []string{"path", "lang", "tags", exactField} {
		doc.AddFieldMappingsAt(f, text(keyword.Name, f == "path"))
	}
	for _, f := range []string{"title", "headings", "text"} {
		stored := text(keyword.Name, true)
		stored.Index = false
		doc.AddFieldMappingsAt(f+"_s", stored)
	}
	for _, f := range []string{"start", "end", "page"} {
		n := bleve.NewNumericFieldMapping()
		n.Index = false
		n.Store = true
		n.DocValues = false
		doc.AddFieldMappingsAt(f, n)
	}
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	m.DefaultMapping = doc
	m.DefaultAnalyzer = analyzerName(generic)
	return m, nil
}

func (d Doc) fields() map[string]any {
	l := fieldLang(d.Lang)
	return map[string]any{
		"title_" + l:    d.Title,
		"headings_" + l: d.HeadingText,
		"body_" + l:     d.Body,
		"aliases":       strings.Join(d.Aliases, "\n"),
		"tags":          d.Tags,
		exactField:      d.exactTerms(),
		"path":          d.Path,
		"lang":          d.Lang,
		"title_s":       d.Title,
		"headings_s":    storedList(d.Headings),
		"text_s":        d.Text,
		"start":         float64(d.Start),
		"end":           float64(d.End),
		"page":          float64(d.Page),
	}
}

// storedList stores a list in one field as JSON: Bleve hands a stored
// list back as a string or a list depending on its length, and no
// separator is safe inside a heading.
func storedList(l []string) string {
	if len(l) == 0 {
		return ""
	}
	b, _ := json.Marshal(l) // a []string always encodes
	return string(b)
}

// loadList reads what storedList stored; never nil.
func loadList(s string) []string {
	out := []string{}
	if s != "" {
		_ = json.Unmarshal([]byte(s), &out) // storedList wrote it
	}
	return out
}

// Close flushes and closes the index.
func (x *Index) Close() error { return x.b.Close() }

// Count returns the number of passages indexed.
func (x *Index) Count() (uint64, error) { return x.b.DocCount() }

// Replace removes every passage of the given paths and adds docs, in one
// batch. Deleting by path, not by remembered ids, means an interrupted
// earlier run can never leave stray passages behind.
func (x *Index) Replace(paths []string, docs []Doc) error {
	batch := x.b.NewBatch()
	for _, p := range paths {
		ids, err := x.idsOf(p)
		if err != nil {
			return err
		}
		for _, id := range ids {
			batch.Delete(id)
		}
	}
	x.famMu.Lock()
	for _, d := range docs {
		x.families[fieldLang(d.Lang)] = true
	}
	x.famMu.Unlock()
	for _, d := range docs {
		if err := batch.Index(d.ID, d.fields()); err != nil {
			return fmt.Errorf("index %s: %w", d.ID, err)
		}
	}
	if err := x.b.Batch(batch); err != nil {
		return fmt.Errorf("bm25 batch: %w", err)
	}
	return nil
}

func (x *Index) idsOf(path string) ([]string, error) {
	q := query.NewTermQuery(path)
	q.SetField("path")
	req := bleve.NewSearchRequestOptions(q, 10000, 0, false)
	req.Score = "none"
	res, err := x.b.Search(req)
	if err != nil {
		return nil, fmt.Errorf("find passages of %s: %w", path, err)
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// Paths returns every note path with passages in the index and their counts.
func (x *Index) Paths() (map[string]int, error) {
	out := map[string]int{}
	const page = 5000
	for from := 0; ; from += page {
		req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), page, from, false)
		req.Fields = []string{"path"}
		req.Score = "none"
		res, err := x.b.Search(req)
		if err != nil {
			return nil, fmt.Errorf("list indexed paths: %w", err)
		}
		for _, h := range res.Hits {
			if p, ok := h.Fields["path"].(string); ok {
				out[p]++
			}
		}
		if len(res.Hits) < page {
			return out, nil
		}
	}
}

// Term is extra query text searched only in one language's fields, at a
// weight relative to the user's own words (1.0): a translation of them.
type Term struct {
	Text   string
	Lang   string
	Weight float64
	// Boost marks a term that only adds to the score of passages the
	// other words find and never finds one alone: a synonym, which may
	// belong to a sense the user did not mean. It is also kept out of
	// the coordination factor that scales a passage by the share of the
	// query's clauses it matches, under which one low-weight match would
	// otherwise multiply a passage's whole score.
	Boost bool
	// Source is the query word a translation stands for ("" for the
	// query's own words); it does not change the search.
	Source string
	// Near makes the term a looser form of its Source word (Lang is not
	// read: it is searched in every language's fields), which counts for
	// a passage only where the word itself is not found, at Weight of
	// the word's score: NearPrefix matches the words that begin with
	// Text (a word being typed), NearFuzzy the words within Edits edits
	// of Text (a typo). Only the words query (coordination "words")
	// searches them.
	Near  Near
	Edits int
}

// Near is how a Term loosens its word.
type Near int

// The looser forms of a word.
const (
	NearNone Near = iota
	NearPrefix
	NearFuzzy
)

// Search runs text as a plain-words query over every language's fields:
// nothing in it is query syntax, so any user text is safe.
func (x *Index) Search(ctx context.Context, text string, k int) ([]Hit, error) {
	return x.SearchTerms(ctx, text, nil, k)
}

// SearchTerms is Search with extra weighted terms, one weighted query.
func (x *Index) SearchTerms(ctx context.Context, text string, extra []Term, k int) ([]Hit, error) {
	return x.SearchPrefer(ctx, text, extra, Prefer{}, k)
}

// Prefer raises the passages of notes in one language: their scores are
// multiplied by Factor. The zero value prefers nothing.
type Prefer struct {
	Lang   string
	Factor float64
}

// SearchPrefer is SearchTerms with a preference for the notes of one
// language, such as the query's own. The preferred language's best k
// passages are searched on their own too, so that a passage the factor
// lifts into the top k is found even when other languages fill the
// first k without it.
func (x *Index) SearchPrefer(ctx context.Context, text string, extra []Term, p Prefer, k int) ([]Hit, error) {
	return x.searchPrefer(ctx, text, extra, p, nil, k)
}

// searchPrefer is SearchPrefer restricted to the passages filter selects;
// a nil filter selects all.
func (x *Index) searchPrefer(ctx context.Context, text string, extra []Term, p Prefer, filter query.Query, k int) ([]Hit, error) {
	q := buildQuery(text, extra, x.searched(), x.fieldWeights())
	if q == nil {
		return nil, nil
	}
	if filter != nil {
		q = query.NewConjunctionQuery([]query.Query{q, filter})
	}
	hits, err := x.run(ctx, q, k)
	if err != nil || p.Lang == "" || p.Factor == 1 || p.Factor <= 0 {
		return hits, err
	}
	// The language term only selects: boost 0 keeps the words' score.
	in := query.NewTermQuery(p.Lang)
	in.SetField("lang")
	in.SetBoost(0)
	preferred, err := x.run(ctx, query.NewConjunctionQuery([]query.Query{q, in}), k)
	if err != nil {
		return nil, err
	}
	// A passage of the language among the first k hits is among its
	// language's first k too: membership there says which hits to raise.
	raise := make(map[string]bool, len(preferred))
	for _, h := range preferred {
		raise[h.ID] = true
	}
	seen := make(map[string]bool, len(hits))
	out := make([]Hit, 0, len(hits)+len(preferred))
	for _, h := range append(hits, preferred...) {
		if seen[h.ID] {
			continue
		}
		seen[h.ID] = true
		if raise[h.ID] {
			h.Score *= p.Factor
		}
		out = append(out, h)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// Holding returns how many passages hold any word of text (in any
// language's fields, each read by its own analyzer) and how many passages
// there are. It counts with one clause per field whatever query Search
// is set to build: the words query leaves out the stop words of the
// language it detects in text, which for a word and its translations
// ("jaké how") can be all of them but one that no passage holds, and a
// count of 0 makes the word weigh as missing from the vault in an
// extracted answer's evidence.
func (x *Index) Holding(ctx context.Context, text string) (matched, total uint64, err error) {
	total, err = x.b.DocCount()
	if err != nil {
		return 0, 0, fmt.Errorf("bm25 count: %w", err)
	}
	w := x.fieldWeights()
	w.ByField, w.Separate = true, false
	q := buildQuery(text, nil, x.searched(), w)
	if q == nil {
		return 0, total, nil
	}
	res, err := x.b.SearchInContext(ctx, bleve.NewSearchRequestOptions(q, 0, 0, false))
	if err != nil {
		return 0, 0, fmt.Errorf("bm25 count: %w", err)
	}
	return res.Total, total, nil
}

// HoldingIn returns how many passages of notes in language l hold word,
// read by that language's analyzer (its stem, in the title, headings or
// body). A language no note is in holds nothing.
func (x *Index) HoldingIn(ctx context.Context, word, l string) (uint64, error) {
	fam := fieldLang(l)
	x.famMu.RLock()
	has := x.families[fam]
	x.famMu.RUnlock()
	if !has || fam == generic {
		return 0, nil
	}
	if strings.TrimSpace(word) == "" {
		return 0, nil
	}
	// A count needs no scores: the plain disjunction of the three
	// fields, not Search's query (which detects the language of the
	// word and sums each word's clauses).
	var qs clauses
	for _, f := range []string{"title", "headings", "body"} {
		qs.add(word, f+"_"+fam, 1)
	}
	res, err := x.b.SearchInContext(ctx, bleve.NewSearchRequestOptions(query.NewDisjunctionQuery(qs), 0, 0, false))
	if err != nil {
		return 0, fmt.Errorf("bm25 count: %w", err)
	}
	return res.Total, nil
}

func (x *Index) run(ctx context.Context, q query.Query, k int) ([]Hit, error) {
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	req.Fields = storedFields
	res, err := x.b.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("bm25 search: %w", err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		hits = append(hits, toHit(h))
	}
	return hits, nil
}

var storedFields = []string{"path", "title_s", "headings_s", "text_s", "start", "end", "page"}

func toHit(h *search.DocumentMatch) Hit {
	hit := Hit{ID: h.ID, Score: h.Score}
	hit.Path, _ = h.Fields["path"].(string)
	hit.Title, _ = h.Fields["title_s"].(string)
	s, _ := h.Fields["headings_s"].(string)
	hit.Headings = loadList(s)
	hit.Text, _ = h.Fields["text_s"].(string)
	if f, ok := h.Fields["start"].(float64); ok {
		hit.Start = int(f)
	}
	if f, ok := h.Fields["end"].(float64); ok {
		hit.End = int(f)
	}
	if f, ok := h.Fields["page"].(float64); ok {
		hit.Page = int(f)
	}
	return hit
}

// searched lists the analyzer families a query searches, in a fixed order.
func (x *Index) searched() []string {
	x.famMu.RLock()
	defer x.famMu.RUnlock()
	out := make([]string, 0, len(x.families))
	for _, f := range familyNames {
		if x.families[f] {
			out = append(out, f)
		}
	}
	return out
}

func buildQuery(text string, extra []Term, families []string, w FieldWeights) query.Query {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	boosts := map[string]float64{"title": w.Title, "aliases": w.Aliases, "headings": w.Headings, "body": 1, exactField: w.Exact}
	var words query.Query
	var nWords int
	if w.ByField {
		words, nWords = byField(text, extra, families, w, boosts)
	} else {
		words, nWords = wordsQuery(text, extra, families, boosts)
		if words == nil {
			return nil
		}
	}
	boostOrder, boostTexts := grouped(extra, true)
	if len(boostOrder) == 0 {
		return words
	}
	// Must and should scores add up, each scaled by its own coordination
	// factor (matched clauses over clauses). Scaling the boost clauses by
	// their count over the words' clause count makes a boost term count
	// as a word of that weight would under the words' factor, without
	// raising the factor of the words' own matches.
	var qs clauses
	for _, g := range boostOrder {
		for _, f := range []string{"title", "headings", "body"} {
			qs.add(strings.Join(boostTexts[g], " "), f+"_"+g.lang, boosts[f]*g.weight)
		}
	}
	scale := float64(len(qs)) / float64(nWords)
	for _, q := range qs {
		q.(*query.MatchQuery).SetBoost(q.(*query.MatchQuery).Boost() * scale)
	}
	return query.NewBooleanQuery([]query.Query{words}, qs, nil)
}

// clauses collects a query's match clauses. A field of boost 0 is left
// out rather than matched for no score.
type clauses []query.Query

func (qs *clauses) add(text, field string, boost float64) {
	if boost == 0 {
		return
	}
	mq := query.NewMatchQuery(text)
	mq.SetField(field)
	mq.SetBoost(boost)
	*qs = append(*qs, mq)
}

// group is the language and weight that translations share a clause by.
type group struct {
	lang   string
	weight float64
}

// grouped gathers the texts of the terms of extra that are boost terms
// (or are not), by group, the groups in the order they first come.
func grouped(extra []Term, boost bool) ([]group, map[group][]string) {
	var order []group
	texts := map[group][]string{}
	for _, t := range extra {
		if t.Boost != boost || t.Near != NearNone {
			continue
		}
		g := group{fieldLang(t.Lang), t.Weight}
		if _, ok := texts[g]; !ok {
			order = append(order, g)
		}
		texts[g] = append(texts[g], t.Text)
	}
	return order, texts
}

// byField is the query of FieldWeights.ByField: one disjunction of a
// clause per field and language, the user's words in every language's
// fields, each language's translations of one weight in one clause.
func byField(text string, extra []Term, families []string, w FieldWeights, boosts map[string]float64) (query.Query, int) {
	var qs clauses
	for _, family := range families {
		for _, f := range []string{"title", "headings", "body"} {
			qs.add(text, f+"_"+family, boosts[f])
		}
	}
	qs.add(text, "aliases", boosts["aliases"])
	// Terms of one language and weight share a clause, so that a long
	// translation does not outnumber the user's own words.
	order, texts := grouped(extra, false)
	for _, g := range order {
		joined := strings.Join(texts[g], " ")
		for _, f := range []string{"title", "headings", "body"} {
			qs.add(joined, f+"_"+g.lang, boosts[f]*g.weight)
		}
	}
	if !w.Separate {
		return query.NewDisjunctionQuery(qs), len(qs)
	}
	var body, fields []query.Query
	for _, q := range qs {
		if strings.HasPrefix(q.(*query.MatchQuery).FieldVal, "body_") {
			body = append(body, q)
		} else {
			fields = append(fields, q)
		}
	}
	return query.NewBooleanQuery([]query.Query{query.NewDisjunctionQuery(body)}, fields, nil), len(body)
}

// Remove deletes the index folder. The caller must not hold it open.
func Remove(dir string) error { return os.RemoveAll(dir) }

// Passages returns the raw text of every passage of a note, in no order.
func (x *Index) Passages(path string) ([]string, error) {
	q := query.NewTermQuery(path)
	q.SetField("path")
	req := bleve.NewSearchRequestOptions(q, 10000, 0, false)
	req.Fields = []string{"text_s"}
	req.Score = "none"
	res, err := x.b.Search(req)
	if err != nil {
		return nil, fmt.Errorf("passages of %s: %w", path, err)
	}
	out := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		t, _ := h.Fields["text_s"].(string)
		out = append(out, t)
	}
	return out, nil
}

// Docs returns the stored passages with the given ids (those that exist).
func (x *Index) Docs(ctx context.Context, ids []string) (map[string]Hit, error) {
	out := make(map[string]Hit, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
	req.Fields = storedFields
	req.Score = "none"
	res, err := x.b.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("load passages: %w", err)
	}
	for _, h := range res.Hits {
		out[h.ID] = toHit(h)
	}
	return out, nil
}

// Compact merges the index into one segment. Bleve merges in the
// background on its own schedule, and until deleted passages are merged
// away they still count in BM25's statistics, so the same query over the
// same notes can score differently a second later. Compacting makes
// scores repeatable (quire eval, quire index); it rewrites the index, so
// the sidecar leaves small edits to the background merger.
func (x *Index) Compact(ctx context.Context) error {
	adv, err := x.b.Advanced()
	if err != nil {
		return err
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	stats := sc.StatsMap()
	mem, _ := stats["num_root_memorysegments"].(uint64)
	files, _ := stats["num_root_filesegments"].(uint64)
	if mem+files <= 1 {
		return nil // one segment holds no deleted passages: nothing to do
	}
	if err := sc.ForceMerge(ctx, &mergeplan.SingleSegmentMergePlanOptions); err != nil {
		return fmt.Errorf("compact bm25 index: %w", err)
	}
	return nil
}
