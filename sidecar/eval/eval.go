package eval

import (
	"context"
	"math"
	"sort"
	"strings"
	"time"
)

// Pool is how many passages are retrieved per question for MRR.
const Pool = 50

// Hit is the minimum eval needs from a retrieved passage.
type Hit struct {
	Path string
	Text string
}

// Retriever returns ranked passages for a query.
type Retriever func(ctx context.Context, query string, n int) ([]Hit, error)

// PassageSource lists every passage text of a note, for reachability.
type PassageSource func(path string) ([]string, error)

// Metrics are the scores of the questions of one type or direction, and
// how many there are.
type Metrics struct {
	N int `json:"n"`
	Scores
}

// Scores are the figures of a set of questions: of one kind (Metrics)
// or of all of them (Report).
type Scores struct {
	Reachable     int     `json:"reachable"`
	SpanRecallAtK float64 `json:"span_recall_at_k"`
	SpanMRR       float64 `json:"span_mrr"`
	NoteRecallAtK float64 `json:"note_recall_at_k"`
	NDCGAtK       float64 `json:"ndcg_at_k"`
	// ShownNoteRecallAtK and DistinctNotesAtK are the view a user or an
	// LLM client gets: the expected note among the top k passages as
	// returned, and how many different notes those k passages come from.
	// NoteRecallAtK, by the benchmark's rule, counts distinct notes over
	// the whole pool, so one note filling the top k does not lower it.
	ShownNoteRecallAtK float64 `json:"shown_note_recall_at_k"`
	DistinctNotesAtK   float64 `json:"distinct_notes_at_k"`
	// RecallAt is recall at fixed depths whatever k is.
	RecallAt RecallAt `json:"recall_at"`
	// GoldFiles are second-brain-evals' figures, for questions.json.
	GoldFiles *GoldFileScores `json:"gold_files,omitempty"`
}

// Depths are the ranks RecallAt is taken at; the last is the pool.
var Depths = [...]int{1, 5, 10, 20, Pool}

// RecallAt is the share of questions found within the first 1, 5, 10, 20
// and 50 passages: span recall for span questions (note recall, by
// distinct notes, for one without a span), and for questions.json a gold
// file among the notes of those passages.
type RecallAt struct {
	At1  float64 `json:"1"`
	At5  float64 `json:"5"`
	At10 float64 `json:"10"`
	At20 float64 `json:"20"`
	At50 float64 `json:"50"`
}

// at returns the field of depth Depths[i].
func (r *RecallAt) at(i int) *float64 {
	return [...]*float64{&r.At1, &r.At5, &r.At10, &r.At20, &r.At50}[i]
}

// GoldFileScores are what second-brain-evals reports for a set of
// questions.json questions: R@5 and R@10 (a gold file among the notes of
// the top 5 or 10 passages) and reachability (a gold file anywhere in the
// pool of 50), as shares and as counts ("87% (13/15)").
type GoldFileScores struct {
	R5           float64 `json:"r_at_5"`
	R10          float64 `json:"r_at_10"`
	Reachability float64 `json:"reachability"`
	Hits5        int     `json:"hits_at_5"`
	Hits10       int     `json:"hits_at_10"`
	InPool       int     `json:"in_pool"`
}

// Report is a whole evaluation run.
type Report struct {
	K       int    `json:"k"`
	Channel string `json:"channel"`
	// Queries is how many questions; the by_type entries call it n.
	Queries int `json:"queries"`
	// Scores are over every question, inline in the JSON.
	Scores
	MedianQueryMS float64             `json:"median_query_ms"`
	ByType        map[string]*Metrics `json:"by_type"`
	// ByDirection splits cross-lingual questions by question language and
	// note language ("it→en"); only for gold files that give query_lang.
	ByDirection map[string]*Metrics `json:"by_direction,omitempty"`
	Dense       *DenseInfo          `json:"dense,omitempty"`
	Misses      []Miss              `json:"misses,omitempty"`
	// Ranks are every question's outcome in order, what the report's
	// pictures are drawn from.
	Ranks []Ranked `json:"ranks,omitempty"`
}

// Ranked is one question's outcome: the rank its answer reached.
type Ranked struct {
	Query     string `json:"query"`
	Type      string `json:"type"`
	Direction string `json:"direction,omitempty"`
	Expected  string `json:"expected"`
	// Rank is the span's rank (for questions.json the first gold
	// passage's), 0 when it is not in the pool of Pool.
	Rank      int  `json:"rank"`
	NoteRank  int  `json:"note_rank"`
	Reachable bool `json:"reachable"`
}

// DenseInfo says what the dense side saw, for runs that use it.
type DenseInfo struct {
	Embedder string  `json:"embedder"`
	Coverage float64 `json:"coverage"`            // share of passages with vectors
	TextSeen float64 `json:"text_seen,omitempty"` // share of their words inside a window, when this run embedded
	// WindowsPerPassage is the model windows read per passage embedded,
	// when this run embedded.
	WindowsPerPassage float64 `json:"windows_per_passage,omitempty"`
}

// Miss records a question whose span (or, for questions.json, gold file)
// was not in the top k.
type Miss struct {
	ID       string `json:"id,omitempty"`
	Query    string `json:"query"`
	Type     string `json:"type"`
	Expected string `json:"expected"`
	SpanRank int    `json:"spanRank"` // 0: not in the pool; for questions.json the first gold passage's rank
	NoteRank int    `json:"noteRank"`
}

// Normalize is the comparison rule for spans: lowercase, whitespace runs
// collapsed to one space, trimmed.
func Normalize(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

type outcome struct {
	typ, direction     string
	reachable          bool
	spanRank, noteRank int  // 1-based; 0 = not found
	shown              bool // the expected note among the top k passages
	distinct           int  // notes among the top k passages
	goldFiles          bool // a questions.json question, scored by goldRank
	goldRank           int  // 1-based rank of the first passage of an expected note; 0 = not in the pool
}

// NoteLang gives an indexed note's language ("" when unknown).
type NoteLang func(path string) string

// direction names a question whose language differs from its note's,
// "it→en", or "" for a same-language question or missing languages.
func direction(q Question, langs NoteLang) string {
	if q.Lang == "" || langs == nil || len(q.Expected) == 0 {
		return ""
	}
	nl := langs(q.Expected[0])
	if nl == "" || nl == q.Lang {
		return ""
	}
	return q.Lang + "→" + nl
}

// Run scores every question. langs may be nil.
func Run(ctx context.Context, qs []Question, k int, retrieve Retriever, passages PassageSource, langs NoteLang) (*Report, error) {
	var outs []outcome
	var lat []float64
	rep := &Report{K: k, Queries: len(qs), ByType: map[string]*Metrics{}}
	for _, q := range qs {
		began := time.Now()
		hits, err := retrieve(ctx, q.Query, max(Pool, k))
		if err != nil {
			return nil, err
		}
		lat = append(lat, float64(time.Since(began).Microseconds())/1000)
		o := outcome{typ: q.Type, direction: direction(q, langs), spanRank: spanRank(q, hits), noteRank: noteRank(q, hits)}
		o.shown, o.distinct = shown(q, hits, k)
		o.goldFiles, o.goldRank = q.GoldFiles, goldRank(q, hits)
		o.reachable, err = reachable(q, passages)
		if err != nil {
			return nil, err
		}
		outs = append(outs, o)
		rank := o.spanRank
		if q.GoldFiles {
			rank = o.goldRank
		}
		rep.Ranks = append(rep.Ranks, Ranked{Query: q.Query, Type: q.Type, Direction: o.direction, Expected: q.Expected[0], Rank: rank, NoteRank: o.noteRank, Reachable: o.reachable})
		switch {
		case q.GoldFiles && (o.goldRank == 0 || o.goldRank > k):
			rep.Misses = append(rep.Misses, Miss{ID: q.ID, Query: q.Query, Type: q.Type, Expected: q.Expected[0], SpanRank: o.goldRank, NoteRank: o.noteRank})
		case len(q.Spans) > 0 && (o.spanRank == 0 || o.spanRank > k):
			rep.Misses = append(rep.Misses, Miss{Query: q.Query, Type: q.Type, Expected: q.Expected[0], SpanRank: o.spanRank, NoteRank: o.noteRank})
		}
	}
	rep.Scores = score(outs, k).Scores
	byType := map[string][]outcome{}
	for _, o := range outs {
		byType[o.typ] = append(byType[o.typ], o)
	}
	for t, os := range byType {
		m := score(os, k)
		rep.ByType[t] = &m
	}
	byDir := map[string][]outcome{}
	for _, o := range outs {
		if o.direction != "" {
			byDir[o.direction] = append(byDir[o.direction], o)
		}
	}
	if len(byDir) > 0 {
		rep.ByDirection = map[string]*Metrics{}
		for d, os := range byDir {
			m := score(os, k)
			rep.ByDirection[d] = &m
		}
	}
	sort.Float64s(lat)
	if len(lat) > 0 {
		rep.MedianQueryMS = lat[len(lat)/2]
	}
	return rep, nil
}

// spanRank is the rank of the first passage from the span's note holding
// the whole span. Questions without a span fall back to the note rank.
func spanRank(q Question, hits []Hit) int {
	if len(q.Spans) == 0 {
		return noteRank(q, hits)
	}
	for i, h := range hits {
		if i >= Pool {
			break
		}
		text := Normalize(h.Text)
		for _, s := range q.Spans {
			if h.Path == s.Note && strings.Contains(text, Normalize(s.Text)) {
				return i + 1
			}
		}
	}
	return 0
}

// noteRank is the rank of the first expected note among distinct notes.
func noteRank(q Question, hits []Hit) int {
	seen := map[string]bool{}
	rank := 0
	for _, h := range hits {
		if seen[h.Path] {
			continue
		}
		seen[h.Path] = true
		rank++
		for _, e := range q.Expected {
			if h.Path == e {
				return rank
			}
		}
	}
	return 0
}

// goldRank is the rank of the first passage, within the pool, whose note
// is expected.
func goldRank(q Question, hits []Hit) int {
	for i, h := range hits[:min(len(hits), Pool)] {
		for _, e := range q.Expected {
			if h.Path == e {
				return i + 1
			}
		}
	}
	return 0
}

// shown reports whether an expected note is among the first k passages,
// and from how many notes those passages come.
func shown(q Question, hits []Hit, k int) (bool, int) {
	seen := map[string]bool{}
	found := false
	for i, h := range hits {
		if i >= k {
			break
		}
		seen[h.Path] = true
		for _, e := range q.Expected {
			found = found || h.Path == e
		}
	}
	return found, len(seen)
}

func reachable(q Question, passages PassageSource) (bool, error) {
	if len(q.Spans) == 0 {
		return true, nil
	}
	for _, s := range q.Spans {
		texts, err := passages(s.Note)
		if err != nil {
			return false, err
		}
		want := Normalize(s.Text)
		for _, t := range texts {
			if strings.Contains(Normalize(t), want) {
				return true, nil
			}
		}
	}
	return false, nil
}

func score(outs []outcome, k int) Metrics {
	m := Metrics{N: len(outs)}
	if len(outs) == 0 {
		return m
	}
	for _, o := range outs {
		if o.reachable {
			m.Reachable++
		}
		if o.spanRank > 0 && o.spanRank <= k {
			m.SpanRecallAtK++
			m.NDCGAtK += 1 / math.Log2(float64(o.spanRank)+1)
		}
		if o.spanRank > 0 {
			m.SpanMRR += 1 / float64(o.spanRank)
		}
		if o.noteRank > 0 && o.noteRank <= k {
			m.NoteRecallAtK++
		}
		if o.shown {
			m.ShownNoteRecallAtK++
		}
		m.DistinctNotesAtK += float64(o.distinct)
		rank := o.spanRank
		if o.goldFiles {
			rank = o.goldRank
			if m.GoldFiles == nil {
				m.GoldFiles = &GoldFileScores{}
			}
			m.GoldFiles.Hits5 += within(rank, 5)
			m.GoldFiles.Hits10 += within(rank, 10)
			m.GoldFiles.InPool += within(rank, Pool)
		}
		for i, d := range Depths {
			*m.RecallAt.at(i) += float64(within(rank, d))
		}
	}
	n := float64(len(outs))
	for i := range Depths {
		*m.RecallAt.at(i) = round(*m.RecallAt.at(i) / n)
	}
	if g := m.GoldFiles; g != nil {
		// Shares of the questions.json questions only, should a run mix
		// formats.
		gn := 0
		for _, o := range outs {
			if o.goldFiles {
				gn++
			}
		}
		g.R5, g.R10, g.Reachability = share(g.Hits5, gn), share(g.Hits10, gn), share(g.InPool, gn)
	}
	m.SpanRecallAtK = round(m.SpanRecallAtK / n)
	m.SpanMRR = round(m.SpanMRR / n)
	m.NoteRecallAtK = round(m.NoteRecallAtK / n)
	m.NDCGAtK = round(m.NDCGAtK / n)
	m.ShownNoteRecallAtK = round(m.ShownNoteRecallAtK / n)
	m.DistinctNotesAtK = round(m.DistinctNotesAtK / n)
	return m
}

// within is 1 when a 1-based rank (0 = not found) is at most d.
func within(rank, d int) int {
	if rank > 0 && rank <= d {
		return 1
	}
	return 0
}

func share(a, n int) float64 { return round(float64(a) / float64(n)) }

func round(f float64) float64 { return math.Round(f*10000) / 10000 }
