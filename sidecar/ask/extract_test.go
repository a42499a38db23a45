package ask

import (
	"fmt"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One two. Three four! Five? 6 is a number.", []string{"One two.", "Three four!", "Five?", "6 is a number."}},
		{"Swiss-type cheese (e.g. Emmental. Gruyère) has eyes. Next one.", []string{"Swiss-type cheese (e.g. Emmental. Gruyère) has eyes.", "Next one."}},
		{"Composed by J. S. Bach in 1720. Then more.", []string{"Composed by J. S. Bach in 1720.", "Then more."}},
		{"Use rennet, e.g. Calf rennet, etc. Or not.", []string{"Use rennet, e.g. Calf rennet, etc. Or not."}},
		{"¿Qué es? ¡Queso! Sí.", []string{"¿Qué es?", "¡Queso!", "Sí."}},
		{"version 1.5 is out. it is lower case", []string{"version 1.5 is out. it is lower case"}},
	}
	for _, tt := range tests {
		if got := splitSentences(tt.in); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
			t.Errorf("splitSentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSentencesSkipHeadingsAndMarkup(t *testing.T) {
	md := "## Curdling\n\n- The *milk* is [[Rennet|curdled]] with rennet today.\n| a | b |\nShort one."
	got := sentences(md)
	want := []string{"The milk is curdled with rennet today."}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSentencesJoinWrappedLines(t *testing.T) {
	md := "# Starter\n\nI feed 1:5:5 by weight, five parts\nflour and five parts water. It peaks\nafter eight hours.\n\n- a list item that has enough words\n- another list item with words\n"
	got := sentences(md)
	want := []string{
		"I feed 1:5:5 by weight, five parts flour and five parts water.",
		"It peaks after eight hours.",
		"a list item that has enough words",
		"another list item with words",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sentence %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// Code and short list items can hold the answer: they are candidates,
// the code joined to the sentence that introduces it; icon embeds are not
// part of any sentence.
func TestSentencesKeepCodeAndListItems(t *testing.T) {
	md := "To embed a block, add its id:\n\n```md\n![[Note#^block-id]]\n```\n\n- Press ![[lucide-terminal.svg#icon]] Ctrl+P.\n\n> [!tip] In a callout\n> ```\n> quire index\n> ```"
	got := sentences(md)
	want := []string{"To embed a block, add its id:\n```md\n![[Note#^block-id]]\n```", "Press  Ctrl+P.", "```\nquire index\n```"}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestCoverage(t *testing.T) {
	ts := termSet{own: map[string]float64{"capit": 1, "mongolia": 3}}
	if got := ts.coverage(map[string]float64{"capit": 1}); got != 0.25 {
		t.Errorf("coverage = %v, want 0.25 (the rare word weighs three times the other)", got)
	}
	if got := ts.coverage(map[string]float64{"capit": 1, "mongolia": 0.8}); got != 1 {
		t.Errorf("coverage = %v, want 1", got)
	}
	if got := (termSet{}).coverage(nil); got != 1 {
		t.Errorf("coverage of no words = %v, want 1", got)
	}
}
