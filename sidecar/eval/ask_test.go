package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestAskSweep(t *testing.T) {
	gold := []Question{
		{Query: "a", Type: "x", Expected: []string{"A.md"}, Spans: []Span{{Note: "A.md", Text: "the cheese is aged for two years"}}},
		{Query: "b", Type: "y", Expected: []string{"B.md"}},
	}
	un := []Unanswerable{{Query: "u1"}, {Query: "u2"}}
	answers := map[string]Answered{
		"a":  {Evidence: 0.6, Cited: []string{"A.md"}, Text: "> The cheese is aged for two years. [1]"},
		"b":  {Evidence: 0.3, Cited: []string{"C.md"}},
		"u1": {Evidence: 0.2},
		"u2": {},
	}
	rep, err := Ask(context.Background(), gold, un, 0.25, func(_ context.Context, q string) (Answered, error) { return answers[q], nil })
	if err != nil {
		t.Fatal(err)
	}
	want := AskPoint{Threshold: 0.25, Answered: 1, Right: 0.5, Span: 0.5, Refused: 1}
	if rep.AtThreshold != want {
		t.Errorf("at threshold: %+v, want %+v", rep.AtThreshold, want)
	}
	if len(rep.Sweep) != 21 || rep.Sweep[0].Refused != 0.5 || rep.Sweep[14].Answered != 0 {
		t.Errorf("sweep: %+v", rep.Sweep)
	}
	if got := rep.ByType["y"]; got == nil || got.Answered != 1 || got.Right != 0 {
		t.Errorf("by type y: %+v", got)
	}
}

func TestLoadUnanswerable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "u.jsonl")
	if err := os.WriteFile(p, []byte("// comment\n{\"question\": \"what?\", \"lang\": \"en\"}\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := LoadUnanswerable(p)
	if err != nil || len(qs) != 1 || qs[0].Query != "what?" {
		t.Fatalf("got %+v, %v", qs, err)
	}
	if err := os.WriteFile(p, []byte("{\"lang\": \"en\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadUnanswerable(p); err == nil {
		t.Error("a line without a question loaded")
	}
}

// The repository's own unanswerable sets load.
func TestUnanswerableSetsLoad(t *testing.T) {
	files, _ := filepath.Glob("../../scripts/testdata/unanswerable/*.jsonl")
	if len(files) < 2 {
		t.Fatalf("found %d unanswerable sets, want one per bench corpus", len(files))
	}
	for _, f := range files {
		if qs, err := LoadUnanswerable(f); err != nil || len(qs) < 15 {
			t.Errorf("%s: %d questions, %v", f, len(qs), err)
		}
	}
}
