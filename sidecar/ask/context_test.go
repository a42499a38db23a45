package ask

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/search"
)

func words(n int, w string) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }

// wordCount is a predictable token counter for packing tests.
func wordCount(s string) int { return len(strings.Fields(s)) }

func TestPack(t *testing.T) {
	p := func(id, path string, start, end, n int) search.Passage {
		return search.Passage{ID: id, Path: path, Title: path, Start: start, End: end, Text: words(n, id)}
	}
	// A block costs its words plus 5: `<passage`, `id="0"`, `note=…`,
	// `heading=…>` and `</passage>`.
	tests := []struct {
		name   string
		ranked []search.Passage
		budget int
		want   []string // ids in the order given, numbered 1…n
	}{
		{"all fit, grouped by note in order of best passage",
			[]search.Passage{p("a1", "a.md", 0, 10, 10), p("b1", "b.md", 0, 10, 10), p("a2", "a.md", 20, 30, 10)},
			100, []string{"a1", "a2", "b1"}},
		{"one too big is skipped, a smaller later one still fits",
			[]search.Passage{p("a1", "a.md", 0, 10, 10), p("big", "b.md", 0, 90, 90), p("c1", "c.md", 0, 10, 10)},
			30, []string{"a1", "c1"}},
		{"exactly the budget", []search.Passage{p("a1", "a.md", 0, 10, 10), p("b1", "b.md", 0, 10, 10)},
			30, []string{"a1", "b1"}},
		{"one token short", []search.Passage{p("a1", "a.md", 0, 10, 10), p("b1", "b.md", 0, 10, 10)},
			29, []string{"a1"}},
		{"same id twice", []search.Passage{p("a1", "a.md", 0, 10, 10), p("a1", "a.md", 0, 10, 10)},
			100, []string{"a1"}},
		{"a window inside a chosen one, and one holding it",
			[]search.Passage{p("a1", "a.md", 100, 200, 10), p("a2", "a.md", 120, 180, 5), p("a3", "a.md", 50, 300, 20)},
			100, []string{"a1"}},
		{"overlapping windows are both kept",
			[]search.Passage{p("a1", "a.md", 100, 200, 10), p("a2", "a.md", 150, 250, 11)},
			100, []string{"a1", "a2"}},
		{"the same text in two notes", []search.Passage{
			{ID: "x#0", Path: "x.md", Text: "Copied   paragraph"}, {ID: "y#0", Path: "y.md", Text: "copied paragraph"}},
			100, []string{"x#0"}},
		{"nothing fits", []search.Passage{p("big", "b.md", 0, 90, 90)}, 50, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Pack(tt.ranked, tt.budget, wordCount)
			var ids []string
			used := 0
			for i, g := range got {
				ids = append(ids, g.ID)
				if g.N != i+1 {
					t.Errorf("passage %s numbered %d, want %d", g.ID, g.N, i+1)
				}
				used += g.Tokens
				if orig := tt.ranked[g.Rank]; orig.Text != g.Text || orig.ID != g.ID {
					t.Errorf("passage %s changed: %q, want %q", g.ID, g.Text, orig.Text)
				}
			}
			if fmt.Sprint(ids) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", ids, tt.want)
			}
			if used > tt.budget {
				t.Errorf("used %d tokens, budget %d", used, tt.budget)
			}
		})
	}
}

// TestPackRealTokens packs many real-sized passages under cl100k and
// checks that the prompt's passages cost no more than the budget and that
// every passage in the prompt is whole.
func TestPackRealTokens(t *testing.T) {
	var ranked []search.Passage
	for i := range 60 {
		ranked = append(ranked, search.Passage{ID: fmt.Sprintf("n%d.md#0", i), Path: fmt.Sprintf("n%d.md", i%7), Start: i * 1000, End: i*1000 + 900,
			Title: fmt.Sprintf("Note %d", i%7), Headings: []string{"Part"}, Text: fmt.Sprintf("Paragraph %d. ", i) + words(20+i*3, "fermentation")})
	}
	for _, budget := range []int{200, 1000, 3000} {
		got := Pack(ranked, budget, nil)
		msgs := Messages("", got, nil, "q")
		prompt := msgs[1].Content
		total := 0
		for _, g := range got {
			total += g.Tokens
			if !strings.Contains(prompt, g.Text+"\n</passage>") {
				t.Errorf("budget %d: passage %s is not whole in the prompt", budget, g.ID)
			}
		}
		if total > budget || len(got) == 0 {
			t.Errorf("budget %d: %d passages cost %d", budget, len(got), total)
		}
		// The blocks as sent cost what was counted, give or take the
		// numbers' digits.
		if sent := countTokens(prompt); sent > total+len(got)*2+20 {
			t.Errorf("budget %d: prompt costs %d tokens, packing counted %d", budget, sent, total)
		}
	}
}

func TestBudgetFromTheModelsWindow(t *testing.T) {
	small := (&Asker{ContextTokens: 2048}).budget("system", "question")
	large := (&Asker{ContextTokens: 32768}).budget("system", "question")
	if small >= 2048-1024 || large <= small || large >= 32768 {
		t.Errorf("budgets %d (2k window) and %d (32k), want the reply and prompt left out of each", small, large)
	}
	if got := (&Asker{ContextTokens: 100}).budget("s", "q"); got != minBudget {
		t.Errorf("tiny window: %d, want the minimum %d", got, minBudget)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  Hello\n\tWorld  ", "hello world"},
		{"*Propionibacterium* [[freudenreichii]]", "propionibacterium freudenreichii"},
		{"“it’s” – ok", `"it's" - ok`},
	}
	for _, tt := range tests {
		if got := normalize(tt.in); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
