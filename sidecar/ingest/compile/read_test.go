package compile

import (
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/markdown"
)

func TestSplit(t *testing.T) {
	para := strings.Repeat("word ", 90) // about 90 tokens
	long := strings.Repeat("many words ", 400)
	md := extract.PageMarker(1) + "\n\n# Title\n\n" + para + "\n\n" + para + "\n\n" + extract.PageMarker(2) + "\n\n" + para + "\n\n" + long + "\n\n" + extract.PageMarker(3) + "\n\n" + para
	chunks := split(md, 200)
	var all []string
	for i, c := range chunks {
		if n := markdown.CountTokens(c.text); n > 200+5 {
			t.Errorf("chunk %d has %d tokens, max 200", i, n)
		}
		if strings.Contains(c.text, "<!-- page") {
			t.Errorf("chunk %d holds a page marker", i)
		}
		all = append(all, strings.Fields(c.text)...)
	}
	if got, want := len(all), len(strings.Fields(md))-3*4; got != want {
		t.Errorf("words: got %d, want %d (every word but the markers, once)", got, want)
	}
	if chunks[0].page != 1 || chunks[len(chunks)-1].page != 3 {
		t.Errorf("pages: first %d, last %d; want 1 and 3", chunks[0].page, chunks[len(chunks)-1].page)
	}
	if got := len(split("", 200)); got != 0 {
		t.Errorf("empty: %d chunks", got)
	}
}

func TestMerges(t *testing.T) {
	tests := []struct {
		sizes         []int
		budget, group int
		want          int
	}{
		{[]int{100}, 200, 1000, 0},
		{[]int{100, 100}, 200, 1000, 0},
		{[]int{100, 100, 100}, 200, 1000, 1},
		{[]int{300, 300, 300, 300, 300}, 200, 700, 3},       // groups of two; the merged notes, guessed at 600 tokens, are then joined
		{[]int{100, 100, 100, 100, 100, 100}, 200, 1400, 1}, // one group: every set fits one merge
		{[]int{900, 900}, 200, 700, 0},                      // too large to merge: joined
	}
	for _, tt := range tests {
		if got := merges(tt.sizes, tt.budget, tt.group); got != tt.want {
			t.Errorf("merges(%v, %d, %d): got %d, want %d", tt.sizes, tt.budget, tt.group, got, tt.want)
		}
	}
}

func TestJoinFits(t *testing.T) {
	var sets []notes
	for range 10 {
		sets = append(sets, notes{Points: []string{strings.Repeat("point ", 20), strings.Repeat("second ", 20)},
			Quotes: []string{strings.Repeat("quote ", 10)}})
	}
	j := join(sets, 300)
	if n := markdown.CountTokens(j.render()); n > 300 {
		t.Errorf("joined notes have %d tokens, budget 300", n)
	}
	if len(j.Points) == 0 || len(j.Quotes) == 0 {
		t.Errorf("joined notes lost a list: %+v", j)
	}
}
