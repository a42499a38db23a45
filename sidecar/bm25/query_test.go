package bm25

import (
	"context"
	"path/filepath"
	"testing"
)

func openWith(t *testing.T, docs []Doc) *Index {
	t.Helper()
	x, err := Open(filepath.Join(t.TempDir(), "bm25"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if err := x.Replace(nil, docs); err != nil {
		t.Fatal(err)
	}
	return x
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestBoostTermsOnlyRerank(t *testing.T) {
	x := openWith(t, []Doc{
		{ID: "chain", Path: "chain.md", Lang: "en", Body: "early bikes stopped with a chain"},
		{ID: "brake", Path: "brake.md", Lang: "en", Body: "early bikes stopped with a brake"},
		{ID: "only", Path: "only.md", Lang: "en", Body: "a brake on a cart"},
	})
	ctx := context.Background()
	plain, err := x.SearchTerms(ctx, "bikes stopped", nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 2 || plain[0].Score != plain[1].Score {
		t.Fatalf("without extra terms: got %v, want chain and brake tied", ids(plain))
	}
	boosted, err := x.SearchTerms(ctx, "bikes stopped", []Term{{Text: "brake", Lang: "en", Weight: 0.5, Boost: true}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(boosted); len(got) != 2 || got[0] != "brake" {
		t.Errorf("with brake as a boost term: got %v, want brake first and no passage found by brake alone", got)
	}
	// The boost adds to the passage's score and multiplies nothing: the
	// passage that lacks it keeps its score (but for Bleve's query norm,
	// which moves every score by the same tiny factor).
	if r := boosted[1].Score / plain[1].Score; r < 0.99 || r > 1.01 {
		t.Errorf("chain scored %v with the boost term, %v without", boosted[1].Score, plain[1].Score)
	}
	found, err := x.SearchTerms(ctx, "bikes stopped", []Term{{Text: "brake", Lang: "en", Weight: 0.5}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 3 {
		t.Errorf("with brake as a plain extra term: got %v, want it to find the cart too", ids(found))
	}
}

func TestBoostWeightBelowTheWords(t *testing.T) {
	// A passage with the user's word must beat one with only a synonym
	// of equal rarity, when the synonym weighs less than the word.
	x := openWith(t, []Doc{
		{ID: "word", Path: "a.md", Lang: "en", Body: "the fiddle was old and the bow was new"},
		{ID: "syn", Path: "b.md", Lang: "en", Body: "the violin was old and the bow was new"},
	})
	hits, err := x.SearchTerms(context.Background(), "fiddle bow", []Term{{Text: "violin", Lang: "en", Weight: 0.5, Boost: true}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); len(got) != 2 || got[0] != "word" {
		t.Errorf("got %v, want the user's own word first", got)
	}
}

// A field weighted 0 is left out of the query: a passage the query's
// words meet only in its note's title is no longer found.
func TestFieldWeights(t *testing.T) {
	x := openWith(t, []Doc{
		{ID: "t", Path: "t.md", Lang: "en", Title: "Rennet", Body: "enzymes that curdle milk"},
		{ID: "b", Path: "b.md", Lang: "en", Title: "Cheese", Body: "made with rennet and milk"},
	})
	ctx := context.Background()
	hits, err := x.Search(ctx, "rennet", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("default weights: got %v, want both", ids(hits))
	}
	x.SetFieldWeights(FieldWeights{Title: 0, Aliases: 1, Headings: 0.5})
	if hits, err = x.Search(ctx, "rennet", 5); err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); len(got) != 1 || got[0] != "b" {
		t.Errorf("title weighted 0: got %v, want only the body match", got)
	}
	// Separate: a body match is required, and the title still counts.
	x = openWith(t, []Doc{
		{ID: "t", Path: "t.md", Lang: "en", Title: "Rennet", Body: "enzymes that curdle milk"},
		{ID: "b", Path: "b.md", Lang: "en", Title: "Cheese", Body: "made with rennet and milk"},
		{ID: "tb", Path: "tb.md", Lang: "en", Title: "Rennet", Body: "made with rennet and milk"},
	})
	x.SetFieldWeights(FieldWeights{Title: 1, Aliases: 1, Headings: 0.5, Separate: true})
	if hits, err = x.Search(ctx, "rennet", 5); err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); len(got) != 2 || got[0] != "tb" || got[1] != "b" {
		t.Errorf("separate: got %v, want tb (title and body) then b (body), and not t (title only)", got)
	}
}
