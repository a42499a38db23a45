package search

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/bm25"
	"github.com/quire-app/quire/sidecar/lang"
)

// TestOneTranslationPerSearch: a search and the marks of its results, as
// the websocket server builds them for every keystroke of the search
// modal, translate the query once per language it is translated into;
// neither the fallback from a failing embedder to keywords nor a caller's
// fallback from a channel without an embedder (engine, ask) translates it
// again. The marks still hold the translated words.
func TestOneTranslationPerSearch(t *testing.T) {
	b, err := bm25.Open(filepath.Join(t.TempDir(), "bm25"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	docs := []bm25.Doc{
		{ID: "a.md#0", Path: "a.md", Lang: "en", Body: "cheese and milk from the farm", Text: "cheese and milk from the farm"},
		{ID: "b.md#0", Path: "b.md", Lang: "it", Body: "il formaggio e il latte della fattoria", Text: "il formaggio e il latte della fattoria"},
	}
	if err := b.Replace(nil, docs); err != nil {
		t.Fatal(err)
	}
	calls := 0
	t.Cleanup(func() { translate = lang.Translate })
	translate = func(q string, from, to lang.Lang, opt lang.Options) ([]lang.Term, error) {
		calls++
		return lang.Translate(q, from, to, opt)
	}
	const q = "the cheese and the milk"
	for _, tt := range []struct {
		name string
		s    *Searcher
		ch   Channel
	}{
		{"bm25", &Searcher{BM25: b, Langs: []string{"en", "it"}}, BM25},
		{"hybrid, embedder failing", &Searcher{BM25: b, Dense: failingDense{}, Langs: []string{"en", "it"}}, Hybrid},
		{"dense, no embedder", &Searcher{BM25: b, Langs: []string{"en", "it"}}, Dense},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls = 0
			r, err := tt.s.Query(context.Background(), q, 5, tt.ch)
			if errors.Is(err, ErrUnavailable) {
				// As the engine and ask do.
				r, err = tt.s.Query(context.Background(), q, 5, BM25)
			}
			if err != nil {
				t.Fatal(err)
			}
			var marks []string
			m := r.Terms.Matcher()
			for _, p := range r.Passages {
				marks = append(marks, m.Words(p.Text)...)
			}
			if calls != 1 {
				t.Errorf("%d translations for one search and its marks, want 1 (English into Italian)", calls)
			}
			if !slices.Contains(marks, "formaggio") || !slices.Contains(marks, "cheese") {
				t.Errorf("marks %q, want the query's words and their translations (cheese, formaggio)", marks)
			}
		})
	}
}

// --explain says how a query too short to detect was read: which words
// the word lists gave a language, and their translations; a word two
// languages know alike gets none.
func TestExplainShortQuery(t *testing.T) {
	got := (&Searcher{Langs: []string{"en", "cs"}}).Explain("tomatoes")
	for _, want := range []string{"query language: unknown\n", "words read by the word lists: tomatoes (en)\n", "tomatoes → rajčata 0.70"} {
		if !strings.Contains(got, want) {
			t.Errorf("explain %q lacks %q", got, want)
		}
	}
	if got := (&Searcher{Langs: []string{"en", "cs"}}).Explain("den"); got != "query language: unknown\n" {
		t.Errorf("explain %q, want only that the language is unknown", got)
	}
}
