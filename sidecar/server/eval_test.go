package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/eval"
)

// TestEvalRunOverWebsocket: eval.run scores the user's questions on every
// channel the index serves (vectors here), with each question's rank and
// span recall per type, draws the eval report's pictures with the
// questions' text escaped, logs each channel to <state>/evals.jsonl, and
// the next run of the same questions is drawn against that one.
func TestEvalRunOverWebsocket(t *testing.T) {
	stateDir := t.TempDir()
	h := start(t, notes, withBag(t), func(o *setup) { o.StateDir = stateDir })
	h.waitIndexed() // vectors too
	c := h.dial()
	q := proto.EvalRun{Set: "Quire/eval-questions.jsonl", Questions: []proto.EvalQuestion{
		{Question: "how much water goes into the starter?", Expected: []string{"Kitchen/Sourdough.md"}, Answer: "equal weights of flour and water", Type: "how_to"},
		{Question: "when is the rye levain built?", Expected: []string{"Kitchen/Rye bread.md"}, Answer: "a sentence no note holds", Type: "how_to"},
		{Question: "are <b>trams</b> in Lisbon?", Expected: []string{"Travel/Lisbon.md"}},
		{Question: "what grows on the balcony?", Expected: []string{"Garden/Balcony.md"}, Type: "missing"},
	}}
	res, err := call[proto.EvalResult](t, c, proto.TypeEvalRun, q)
	if err != nil {
		t.Fatal(err)
	}
	var chans []string
	for _, ch := range res.Channels {
		chans = append(chans, ch.Channel)
	}
	if strings.Join(chans, ",") != "bm25,dense,hybrid" || res.K != 5 || res.Control != "" {
		t.Fatalf("channels %v, k %d, control %q; want bm25,dense,hybrid, 5, none", chans, res.K, res.Control)
	}
	bm := res.Channels[0]
	if len(bm.Ranks) != 4 {
		t.Fatalf("%d ranks, want 4", len(bm.Ranks))
	}
	if r := bm.Ranks[0]; r.Rank != 1 || !r.Reachable || r.Expected != "Kitchen/Sourdough.md" || r.Type != "how_to" {
		t.Errorf("found question: %+v, want rank 1, reachable", r)
	}
	if r := bm.Ranks[1]; r.Rank != 0 || r.Reachable || r.NoteRank == 0 {
		t.Errorf("unreachable answer: %+v, want rank 0, unreachable, its note ranked", r)
	}
	if r := bm.Ranks[2]; r.Type != "untyped" || r.NoteRank != 1 || r.Rank != 1 {
		t.Errorf("question without an answer: %+v, want untyped, found by its note at 1", r)
	}
	if bm.SpanRecallAtK != 0.5 || bm.Reachable != 3 {
		t.Errorf("bm25 span recall %v, reachable %d; want 0.5, 3", bm.SpanRecallAtK, bm.Reachable)
	}
	types := map[string]proto.EvalType{}
	for _, x := range bm.ByType {
		types[x.Type] = x
	}
	if types["how_to"].N != 2 || types["how_to"].SpanRecallAtK != 0.5 || types["untyped"].SpanRecallAtK != 1 || types["missing"].SpanRecallAtK != 0 {
		t.Errorf("by type %+v", bm.ByType)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "question 4: Garden/Balcony.md is not in the index") {
		t.Errorf("warnings %q, want the missing note named", res.Warnings)
	}
	p := res.Pictures
	for name, svg := range map[string]string{"recall": p.Recall, "types": p.Types, "ranks": p.Ranks} {
		if !strings.HasPrefix(svg, "<svg ") || !strings.HasSuffix(svg, "</svg>") {
			t.Errorf("%s picture is not one SVG: %.80s", name, svg)
		}
	}
	if strings.Contains(p.Ranks, "<b>") || !strings.Contains(p.Ranks, "are &lt;b&gt;trams&lt;/b&gt; in Lisbon?") {
		t.Error("the rank strip does not carry the question's text escaped")
	}
	if strings.Contains(p.Recall, "before") {
		t.Error("a first run is drawn against a previous one")
	}

	log, err := eval.ReadLog(filepath.Join(stateDir, "evals.jsonl"))
	if err != nil || len(log) != 3 {
		t.Fatalf("log: %d entries, %v; want 3", len(log), err)
	}
	if e := log[2]; e.Name != "view" || e.Set != q.Set || e.Report.Channel != "hybrid" || len(e.Report.Ranks) != 4 || e.GoldHash == "" {
		t.Errorf("logged %+v", e)
	}

	again, err := call[proto.EvalResult](t, c, proto.TypeEvalRun, q)
	if err != nil {
		t.Fatal(err)
	}
	if again.Control == "" || !strings.Contains(again.Pictures.Recall, "before hybrid") || !strings.Contains(again.Pictures.Types, ">before<") {
		t.Errorf("second run: control %q; want it drawn against the first", again.Control)
	}
	// Other questions are never compared with these.
	q.Questions = q.Questions[:3]
	other, err := call[proto.EvalResult](t, c, proto.TypeEvalRun, q)
	if err != nil {
		t.Fatal(err)
	}
	if other.Control != "" {
		t.Errorf("a changed set is drawn against %s", other.Control)
	}
	if _, err := os.Stat(filepath.Join(h.vault, "Quire")); err == nil {
		t.Error("eval.run wrote into the vault")
	}
}

// TestEvalRunRefuses: a set with no question, a question without a note
// or words, too many questions, a question too long or k beyond the pool
// are refused with a code and a message; the sidecar serves on.
func TestEvalRunRefuses(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	one := func(q proto.EvalQuestion) []proto.EvalQuestion { return []proto.EvalQuestion{q} }
	many := make([]proto.EvalQuestion, 1001)
	for i := range many {
		many[i] = proto.EvalQuestion{Question: "rye", Expected: []string{"Kitchen/Rye bread.md"}}
	}
	for _, tc := range []struct {
		name string
		q    proto.EvalRun
		code proto.ErrorCode
	}{
		{"no questions", proto.EvalRun{}, proto.CodeInvalidRequest},
		{"no note", proto.EvalRun{Questions: one(proto.EvalQuestion{Question: "rye"})}, proto.CodeInvalidRequest},
		{"no words", proto.EvalRun{Questions: one(proto.EvalQuestion{Question: "  ", Expected: []string{"Kitchen/Rye bread.md"}})}, proto.CodeInvalidRequest},
		{"too many", proto.EvalRun{Questions: many}, proto.CodeTooLarge},
		{"too long", proto.EvalRun{Questions: one(proto.EvalQuestion{Question: strings.Repeat("rye ", 2000), Expected: []string{"Kitchen/Rye bread.md"}})}, proto.CodeTooLarge},
		{"k beyond the pool", proto.EvalRun{K: 51, Questions: one(proto.EvalQuestion{Question: "rye", Expected: []string{"Kitchen/Rye bread.md"}})}, proto.CodeInvalidRequest},
	} {
		_, err := call[proto.EvalResult](t, c, proto.TypeEvalRun, tc.q)
		wantCode(t, err, tc.code)
	}
	res, err := call[proto.EvalResult](t, c, proto.TypeEvalRun, proto.EvalRun{K: 3, Questions: one(proto.EvalQuestion{Question: "rye levain", Expected: []string{"Kitchen/Rye bread.md"}})})
	if err != nil || len(res.Channels) != 1 || res.Channels[0].Channel != "bm25" || res.K != 3 || res.Channels[0].SpanRecallAtK != 1 {
		t.Errorf("after the refusals, without vectors: %+v, %v; want bm25 alone at k 3, found", res, err)
	}
}
