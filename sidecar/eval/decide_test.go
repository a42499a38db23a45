package eval

import (
	"path/filepath"
	"strings"
	"testing"
)

// entry is a logged run of one set whose questions of each type are
// found (1) or not (0) within k, in order.
func entry(name, set string, found map[string][]int) LogEntry {
	rep := &Report{K: 5, Channel: "hybrid", ByType: map[string]*Metrics{}}
	all := 0
	for t, fs := range found {
		h := 0
		for _, f := range fs {
			h += f
		}
		all += h
		rep.Queries += len(fs)
		rep.ByType[t] = &Metrics{N: len(fs), Scores: Scores{Reachable: len(fs), SpanRecallAtK: round(float64(h) / float64(len(fs)))}}
	}
	rep.Reachable = rep.Queries
	rep.SpanRecallAtK = round(float64(all) / float64(rep.Queries))
	return LogEntry{Name: name, Set: set, GoldHash: "gold-" + set, Config: Ranking{Channel: "hybrid"}, Report: rep}
}

// ones is n found questions then m missed ones.
func ones(n, m int) []int {
	return append(make([]int, 0, n+m), append(repeat(1, n), repeat(0, m)...)...)
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// logOf appends entries to a real log file and reads it back.
func logOf(t *testing.T, es ...LogEntry) []LogEntry {
	t.Helper()
	path := filepath.Join(t.TempDir(), "evals.jsonl")
	for _, e := range es {
		if err := Append(path, e); err != nil {
			t.Fatal(err)
		}
	}
	log, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

func TestDecideRefusesALossOnOneType(t *testing.T) {
	// Over two sets of 100 questions, the run gains 15 paraphrase
	// questions a set but loses 6 of 40 exact_term ones on the first:
	// no set falls (+9, +15), yet exact_term pooled loses 0.075, over
	// 0.05, so only that clause fails.
	control := []LogEntry{
		entry("off", "a", map[string][]int{"paraphrase": ones(20, 40), "exact_term": ones(30, 10)}),
		entry("off", "b", map[string][]int{"paraphrase": ones(20, 40), "exact_term": ones(30, 10)}),
	}
	run := []LogEntry{
		entry("builtin", "a", map[string][]int{"paraphrase": ones(35, 25), "exact_term": ones(24, 16)}),
		entry("builtin", "b", map[string][]int{"paraphrase": ones(35, 25), "exact_term": ones(30, 10)}),
	}
	d, err := Decide(logOf(t, append(control, run...)...), "off", "", "hybrid", DefaultRule)
	if err != nil {
		t.Fatal(err)
	}
	if d.Accept || d.Run != "builtin" {
		t.Fatalf("accepted %q, want builtin refused:\n%s", d.Run, d)
	}
	held := []bool{true, true, false, true}
	for i, c := range d.Conditions {
		if c.Held != held[i] {
			t.Errorf("condition %d held=%v, want %v: %s", i+1, c.Held, held[i], c.Text)
		}
	}
	if !strings.Contains(d.String(), "exact_term (80) 0.750 → 0.675") {
		t.Errorf("verdict does not name the losing type:\n%s", d)
	}
}

func TestDecideAcceptsAGainOnAllTypes(t *testing.T) {
	control := []LogEntry{
		entry("off", "a", map[string][]int{"paraphrase": ones(20, 40), "exact_term": ones(30, 10)}),
		entry("off", "b", map[string][]int{"paraphrase": ones(20, 40), "exact_term": ones(30, 10)}),
	}
	run := []LogEntry{
		entry("better", "a", map[string][]int{"paraphrase": ones(24, 36), "exact_term": ones(32, 8)}),
		entry("better", "b", map[string][]int{"paraphrase": ones(23, 37), "exact_term": ones(31, 9)}),
	}
	d, err := Decide(logOf(t, append(control, run...)...), "off", "better", "hybrid", DefaultRule)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Accept {
		t.Fatalf("refused a gain on every type:\n%s", d)
	}
	if d.MinGain != 0.03 {
		t.Errorf("asked a gain of %v over 200 questions, want README's 0.03 (200 questions resolve 0.025)", d.MinGain)
	}
}

func TestDecideAsksMoreOfASmallSet(t *testing.T) {
	// One set of 20: +2 questions is +0.10, within what 20 questions resolve (5/20).
	control := entry("off", "mine", map[string][]int{"mine": ones(10, 10)})
	run := entry("on", "mine", map[string][]int{"mine": ones(12, 8)})
	d, err := Decide(logOf(t, control, run), "off", "on", "hybrid", DefaultRule)
	if err != nil {
		t.Fatal(err)
	}
	if d.Accept || d.MinGain != 0.25 {
		t.Errorf("accept=%v min gain %v, want refused with 0.25 asked:\n%s", d.Accept, d.MinGain, d)
	}
}

func TestDecideRefusesOtherQuestions(t *testing.T) {
	control := entry("off", "a", map[string][]int{"t": ones(1, 1)})
	run := entry("on", "a", map[string][]int{"t": ones(2, 0)})
	run.GoldHash = "edited"
	if _, err := Decide(logOf(t, control, run), "off", "on", "hybrid", DefaultRule); err == nil || !strings.Contains(err.Error(), "different gold files") {
		t.Errorf("err = %v, want the gold files told apart", err)
	}
	if _, err := Decide(logOf(t, run), "nope", "on", "hybrid", DefaultRule); err == nil || !strings.Contains(err.Error(), `no control run named "nope"`) {
		t.Errorf("err = %v, want the missing control named", err)
	}
}
