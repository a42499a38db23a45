package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	if got, want := Normalize("  The  6 and\nthe *5*  "), "the 6 and the *5*"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRunScores(t *testing.T) {
	qs := []Question{
		// Span in the 2nd passage, from the right note: rank 2.
		{Query: "q1", Type: "paraphrase", Expected: []string{"a.md"}, Spans: []Span{{Note: "a.md", Text: "Blue  Mould"}}},
		// The span text appears, but in another note: not a hit. Note rank 2.
		{Query: "q2", Type: "exact_term", Expected: []string{"b.md"}, Spans: []Span{{Note: "b.md", Text: "rennet"}}},
		// Part of the span only: a miss, and the span is unreachable.
		{Query: "q3", Type: "exact_term", Expected: []string{"c.md"}, Spans: []Span{{Note: "c.md", Text: "whole span here"}}},
	}
	results := map[string][]Hit{
		"q1": {{Path: "x.md", Text: "blue mould"}, {Path: "a.md", Text: "the blue\nmould grows"}},
		"q2": {{Path: "x.md", Text: "rennet"}, {Path: "x.md", Text: "more"}, {Path: "b.md", Text: "no"}},
		"q3": {{Path: "c.md", Text: "whole span"}},
	}
	retrieve := func(_ context.Context, q string, n int) ([]Hit, error) {
		if n < Pool {
			t.Errorf("retrieved %d, want a pool of at least %d", n, Pool)
		}
		return results[q], nil
	}
	passages := func(path string) ([]string, error) {
		return map[string][]string{"a.md": {"the blue mould grows"}, "b.md": {"rennet is an enzyme"}, "c.md": {"whole span", "here"}}[path], nil
	}
	rep, err := Run(context.Background(), qs, 5, retrieve, passages, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 3 || rep.Reachable != 2 {
		t.Errorf("queries %d reachable %d, want 3 and 2", rep.Queries, rep.Reachable)
	}
	if want := round(1.0 / 3); rep.SpanRecallAtK != want {
		t.Errorf("span recall = %v, want %v", rep.SpanRecallAtK, want)
	}
	if want := round(0.5 / 3); rep.SpanMRR != want {
		t.Errorf("span MRR = %v, want %v", rep.SpanMRR, want)
	}
	if want := 1.0; rep.NoteRecallAtK != want {
		t.Errorf("note recall = %v, want %v (every question finds its note)", rep.NoteRecallAtK, want)
	}
	// What a reader sees at k = 2: q1 shows a.md, q2 only x.md, q3 c.md.
	rep2, err := Run(context.Background(), qs, 2, retrieve, passages, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := round(2.0 / 3); rep2.ShownNoteRecallAtK != want {
		t.Errorf("shown note recall@2 = %v, want %v", rep2.ShownNoteRecallAtK, want)
	}
	if want := round(4.0 / 3); rep2.DistinctNotesAtK != want {
		t.Errorf("distinct notes@2 = %v, want %v (2, 1 and 1 notes)", rep2.DistinctNotesAtK, want)
	}
	if want := round(0.6309297535714575 / 3); rep.NDCGAtK != want {
		t.Errorf("nDCG = %v, want %v", rep.NDCGAtK, want)
	}
	if m := rep.ByType["exact_term"]; m == nil || m.N != 2 || m.SpanRecallAtK != 0 || m.Reachable != 1 {
		t.Errorf("by type exact_term = %+v", m)
	}
	if len(rep.Misses) != 2 {
		t.Errorf("misses = %+v, want q2 and q3", rep.Misses)
	}
}

func TestRankBeyondKIsAMissButCountsForMRR(t *testing.T) {
	q := Question{Query: "q", Expected: []string{"a.md"}, Spans: []Span{{Note: "a.md", Text: "x"}}}
	var hits []Hit
	for i := 0; i < 7; i++ {
		hits = append(hits, Hit{Path: "n" + string(rune('a'+i)) + ".md", Text: "x"})
	}
	hits = append(hits, Hit{Path: "a.md", Text: "x"})
	rep, _ := Run(context.Background(), []Question{q}, 5,
		func(context.Context, string, int) ([]Hit, error) { return hits, nil },
		func(string) ([]string, error) { return []string{"x"}, nil }, nil)
	if rep.SpanRecallAtK != 0 || rep.SpanMRR != round(1.0/8) || rep.NoteRecallAtK != 0 {
		t.Errorf("got %+v, want recall 0, MRR 1/8", rep)
	}
}

func TestLoadFormats(t *testing.T) {
	dir := t.TempDir()
	bench := `[{"query":"q","query_lang":"en","type":"buried","expected_notes":["a.md"],"answer_spans":[{"note":"a.md","text":"s"}]}]`
	lines := "{\"question\":\"how?\",\"expected\":[\"b.md\"],\"answer\":\"because\"}\n\n{\"query\":\"why?\",\"expected_notes\":[\"c.md\"],\"type\":\"mine\"}\n"
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	qs, err := Load(write("gold.json", bench))
	if err != nil || len(qs) != 1 || qs[0].Type != "buried" || qs[0].Spans[0].Text != "s" {
		t.Fatalf("bench format: %+v %v", qs, err)
	}
	qs, err = Load(write("mine.jsonl", lines))
	if err != nil || len(qs) != 2 {
		t.Fatalf("jsonl: %+v %v", qs, err)
	}
	if qs[0].Query != "how?" || qs[0].Spans[0].Note != "b.md" || qs[0].Type != "untyped" || qs[1].Type != "mine" || len(qs[1].Spans) != 0 {
		t.Errorf("jsonl parsed as %+v", qs)
	}
	if _, err := Load(write("bad.jsonl", "{\"question\":\"x\"}\n")); err == nil || !strings.Contains(err.Error(), "expected note") {
		t.Errorf("question without expected note: err = %v", err)
	}
	if _, err := Load(write("broken.jsonl", "{nope\n")); err == nil || !strings.Contains(err.Error(), "broken.jsonl:1") {
		t.Errorf("broken line: err = %v, want file:line", err)
	}
}

func TestByDirection(t *testing.T) {
	qs := []Question{
		{Query: "q1", Lang: "it", Type: "cross_lingual", Expected: []string{"en.md"}, Spans: []Span{{Note: "en.md", Text: "x"}}},
		{Query: "q2", Lang: "en", Type: "paraphrase", Expected: []string{"en.md"}, Spans: []Span{{Note: "en.md", Text: "x"}}},
	}
	rep, err := Run(context.Background(), qs, 5,
		func(context.Context, string, int) ([]Hit, error) { return []Hit{{Path: "en.md", Text: "x"}}, nil },
		func(string) ([]string, error) { return []string{"x"}, nil },
		func(string) string { return "en" })
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.ByDirection) != 1 || rep.ByDirection["it→en"] == nil || rep.ByDirection["it→en"].N != 1 {
		t.Errorf("by direction = %+v, want only it→en with one question", rep.ByDirection)
	}
}

// TestReportJSON pins the JSON of a report, as `quire eval --json` prints
// it and the run log keeps it: the README and scripts quote its names
// (span_recall_at_k, by_type, ...), so they and their order must not move.
func TestReportJSON(t *testing.T) {
	qs := []Question{
		{Query: "q1", Type: "paraphrase", Lang: "it", Expected: []string{"a.md"}, Spans: []Span{{Note: "a.md", Text: "blue mould"}}},
		{Query: "q2", Type: "exact_term", Expected: []string{"b.md"}, Spans: []Span{{Note: "b.md", Text: "rennet"}}},
	}
	retrieve := func(_ context.Context, q string, n int) ([]Hit, error) {
		return map[string][]Hit{"q1": {{Path: "a.md", Text: "the blue mould"}}, "q2": {{Path: "x.md", Text: "whey"}}}[q], nil
	}
	passages := func(path string) ([]string, error) {
		return map[string][]string{"a.md": {"the blue mould"}, "b.md": {"rennet"}}[path], nil
	}
	langs := func(string) string { return "en" }
	rep, err := Run(context.Background(), qs, 5, retrieve, passages, langs)
	if err != nil {
		t.Fatal(err)
	}
	rep.Channel, rep.MedianQueryMS = "bm25", 1.5
	rep.Dense = &DenseInfo{Embedder: "e", Coverage: 1}
	got, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	r := func(v int) string {
		return fmt.Sprintf(`,"recall_at":{"1":%[1]d,"5":%[1]d,"10":%[1]d,"20":%[1]d,"50":%[1]d}`, v)
	}
	// The names of earlier runs stay as they were, in their order;
	// recall_at follows them in each set of scores.
	want := `{"k":5,"channel":"bm25","queries":2,"reachable":2,"span_recall_at_k":0.5,"span_mrr":0.5,"note_recall_at_k":0.5,"ndcg_at_k":0.5,` +
		`"shown_note_recall_at_k":0.5,"distinct_notes_at_k":1` + `,"recall_at":{"1":0.5,"5":0.5,"10":0.5,"20":0.5,"50":0.5}` + `,"median_query_ms":1.5,` +
		`"by_type":{"exact_term":{"n":1,"reachable":1,"span_recall_at_k":0,"span_mrr":0,"note_recall_at_k":0,"ndcg_at_k":0,"shown_note_recall_at_k":0,"distinct_notes_at_k":1` + r(0) + `},` +
		`"paraphrase":{"n":1,"reachable":1,"span_recall_at_k":1,"span_mrr":1,"note_recall_at_k":1,"ndcg_at_k":1,"shown_note_recall_at_k":1,"distinct_notes_at_k":1` + r(1) + `}},` +
		`"by_direction":{"it→en":{"n":1,"reachable":1,"span_recall_at_k":1,"span_mrr":1,"note_recall_at_k":1,"ndcg_at_k":1,"shown_note_recall_at_k":1,"distinct_notes_at_k":1` + r(1) + `}},` +
		`"dense":{"embedder":"e","coverage":1},"misses":[{"query":"q2","type":"exact_term","expected":"b.md","spanRank":0,"noteRank":0}],` +
		`"ranks":[{"query":"q1","type":"paraphrase","direction":"it→en","expected":"a.md","rank":1,"note_rank":1,"reachable":true},` +
		`{"query":"q2","type":"exact_term","expected":"b.md","rank":0,"note_rank":0,"reachable":true}]}`
	if string(got) != want {
		t.Errorf("report JSON\n got %s\nwant %s", got, want)
	}
}

// TestRecallAtSpans: span recall at 1, 5, 10, 20 and 50 passages, the
// span found at rank 3 in one question, 12 in another, not at all in a
// third.
func TestRecallAtSpans(t *testing.T) {
	var qs []Question
	results := map[string][]Hit{}
	for i, at := range []int{3, 12, 0} {
		q := fmt.Sprint("q", i)
		qs = append(qs, Question{Query: q, Type: "t", Expected: []string{"a.md"}, Spans: []Span{{Note: "a.md", Text: "the fact"}}})
		for r := 1; r <= 60; r++ {
			h := Hit{Path: fmt.Sprint("n", r, ".md"), Text: "noise"}
			if r == at {
				h = Hit{Path: "a.md", Text: "here is the fact"}
			}
			results[q] = append(results[q], h)
		}
	}
	rep, err := Run(context.Background(), qs, 5,
		func(_ context.Context, q string, _ int) ([]Hit, error) { return results[q], nil },
		func(string) ([]string, error) { return []string{"the fact"}, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.RecallAt, (RecallAt{At1: 0, At5: round(1.0 / 3), At10: round(1.0 / 3), At20: round(2.0 / 3), At50: round(2.0 / 3)}); got != want {
		t.Errorf("recall at = %+v, want %+v", got, want)
	}
	if rep.RecallAt.At5 != rep.SpanRecallAtK || rep.GoldFiles != nil {
		t.Errorf("recall@5 %v against span recall@5 %v, gold files %+v; want equal and no gold-file scores", rep.RecallAt.At5, rep.SpanRecallAtK, rep.GoldFiles)
	}
}

const brainQuestions = `[
  {"id": "q01", "type": "fact", "question": "what curdles milk?", "terms": ["rennet|curd"], "gold": ["Kitchen/Rennet.md"]},
  {"id": "q02", "type": "fact", "question": "which laptop now?", "terms": ["laptop"], "gold": ["Laptop setup.md", "Home.md"], "note": "either"},
  {"id": "q03", "type": "current", "question": "current plan?", "terms": ["plan"], "gold": ["Plan v3.md"]},
  {"id": "q04", "type": "current", "question": "nothing finds it", "terms": ["x"], "gold": ["Lost.md"]}
]`

func TestLoadQuestionsJSON(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "questions.json")
	os.WriteFile(p, []byte(brainQuestions), 0o644)
	qs, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 4 || !qs[1].GoldFiles || qs[1].ID != "q02" || qs[1].Query != "which laptop now?" || qs[1].Type != "fact" ||
		fmt.Sprint(qs[1].Expected) != "[Laptop setup.md Home.md]" || len(qs[1].Spans) != 0 {
		t.Errorf("questions.json read as %+v", qs)
	}
	mixed := `[{"id": "a", "question": "q", "gold": ["a.md"]}, {"query": "q", "expected_notes": ["b.md"]}]`
	os.WriteFile(p, []byte(mixed), 0o644)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "question 2: no gold files") {
		t.Errorf("mixed formats: err = %v", err)
	}
	os.WriteFile(p, []byte(`[{"id": "a", "question": "", "gold": ["a.md"]}]`), 0o644)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "needs a query") {
		t.Errorf("empty question: err = %v", err)
	}
}

// TestGoldFileScores: second-brain-evals' R@5, R@10 and reachability,
// per type and overall. A question is a hit at k when a gold file is
// among the notes of the top k passages, however many passages one note
// has there; reachable when one is anywhere in the pool of 50.
func TestGoldFileScores(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "questions.json")
	os.WriteFile(p, []byte(brainQuestions), 0o644)
	qs, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	noise := func(n int) []Hit {
		var hs []Hit
		for i := range n {
			hs = append(hs, Hit{Path: fmt.Sprint("noise", i, ".md")})
		}
		return hs
	}
	results := map[string][]Hit{
		// Passage 2: a hit at 5.
		"what curdles milk?": append([]Hit{{Path: "Big.md"}, {Path: "Kitchen/Rennet.md"}}, noise(50)...),
		// The second gold file at passage 7, the third note: a hit at 10,
		// not at 5, where the top 5 passages show two notes.
		"which laptop now?": append([]Hit{{Path: "A.md"}, {Path: "A.md"}, {Path: "A.md"}, {Path: "B.md"}, {Path: "B.md"}, {Path: "B.md"}, {Path: "Home.md"}}, noise(50)...),
		// At passage 40: reachable only.
		"current plan?":    append(append(noise(39), Hit{Path: "Plan v3.md"}), noise(20)...),
		"nothing finds it": noise(60),
	}
	rep, err := Run(context.Background(), qs, 5,
		func(_ context.Context, q string, _ int) ([]Hit, error) { return results[q], nil },
		func(string) ([]string, error) { t.Error("questions.json has no spans to look for"); return nil, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := GoldFileScores{R5: 0.25, R10: 0.5, Reachability: 0.75, Hits5: 1, Hits10: 2, InPool: 3}
	if rep.GoldFiles == nil || *rep.GoldFiles != want {
		t.Errorf("overall %+v, want %+v", rep.GoldFiles, want)
	}
	if got, want := rep.RecallAt, (RecallAt{At1: 0, At5: 0.25, At10: 0.5, At20: 0.5, At50: 0.75}); got != want {
		t.Errorf("recall at = %+v, want %+v", got, want)
	}
	fact, current := rep.ByType["fact"].GoldFiles, rep.ByType["current"].GoldFiles
	if fact == nil || *fact != (GoldFileScores{R5: 0.5, R10: 1, Reachability: 1, Hits5: 1, Hits10: 2, InPool: 2}) {
		t.Errorf("fact: %+v", fact)
	}
	if current == nil || *current != (GoldFileScores{R5: 0, R10: 0, Reachability: 0.5, InPool: 1}) {
		t.Errorf("current: %+v", current)
	}
	if len(rep.Misses) != 3 || rep.Misses[0].ID != "q02" || rep.Misses[0].SpanRank != 7 || rep.Misses[2].SpanRank != 0 {
		t.Errorf("misses = %+v, want q02 (rank 7), q03 (40) and q04 (none)", rep.Misses)
	}
}
