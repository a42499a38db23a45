package bm25

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"
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
	// which moves every score by the same small factor: 4% here).
	if r := boosted[1].Score / plain[1].Score; r < 0.95 || r > 1.05 {
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
	x.SetFieldWeights(FieldWeights{Title: 1, Aliases: 1, Headings: 0.5, Separate: true, ByField: true})
	if hits, err = x.Search(ctx, "rennet", 5); err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); len(got) != 2 || got[0] != "tb" || got[1] != "b" {
		t.Errorf("separate: got %v, want tb (title and body) then b (body), and not t (title only)", got)
	}
}

// A query word counts once in the coordination factor, whatever fields
// it is found in: a passage holding both words of the query in its body
// comes before one whose note's title, heading and body hold one of
// them. Counting field clauses (ByField) put the second first.
func TestWordsCountOnce(t *testing.T) {
	x := openWith(t, []Doc{
		{ID: "one", Path: "one.md", Lang: "en", Title: "Rennet", HeadingText: "Rennet", Body: "rennet is sold in small bottles at the chemist"},
		{ID: "both", Path: "both.md", Lang: "en", Title: "Cheese", Body: "rennet makes milk curdle in a warm pot"},
	})
	ctx := context.Background()
	hits, err := x.Search(ctx, "rennet curdle", 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); len(got) != 2 || got[0] != "both" {
		t.Errorf("got %v, want both (two words) first", got)
	}
}

// A group of clauses scores the sum of the clauses that match a passage,
// with no coordination factor: Bleve's disjunction of the same clauses
// scores that sum times the share of them that matched. Five clauses use
// Bleve's slice disjunction, fifteen its heap one.
func TestSumQueryScoresTheSum(t *testing.T) {
	var docs []Doc
	words := []string{"alder", "birch", "cedar", "dogwood", "elm", "fir", "ginkgo", "hazel", "ivy", "juniper", "larch", "maple", "oak", "pine", "rowan"}
	for i := 0; i < 40; i++ {
		var body []string
		for j, w := range words {
			if (i+1)%(j+2) == 0 || (i*7+j)%5 == 0 {
				body = append(body, w)
			}
		}
		docs = append(docs, Doc{ID: strconv.Itoa(i), Path: strconv.Itoa(i) + ".md", Lang: "en", Title: words[i%len(words)], Body: strings.Join(body, " and ")})
	}
	x := openWith(t, docs)
	ctx := context.Background()
	for _, n := range []int{3, 8} {
		var qs []query.Query
		for j, w := range words[:n] {
			for _, f := range []string{"body_en", "title_en"} {
				mq := query.NewMatchQuery(w)
				mq.SetField(f)
				mq.SetBoost(1 + float64(j%3)/2)
				qs = append(qs, mq)
			}
		}
		matched := map[string]int{}
		for _, q := range qs {
			hits, err := x.run(ctx, q, len(docs))
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				matched[h.ID]++
			}
		}
		disj, err := x.run(ctx, query.NewDisjunctionQuery(qs), len(docs))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		for _, h := range disj {
			want[h.ID] = h.Score * float64(len(qs)) / float64(matched[h.ID])
		}
		hits, err := x.run(ctx, &sumQuery{qs: qs}, len(docs))
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != len(want) || len(hits) < 10 {
			t.Errorf("%d clauses: %d passages, want %d", len(qs), len(hits), len(want))
		}
		spread := false
		for _, h := range hits {
			if d := h.Score - want[h.ID]; d > 1e-9*want[h.ID] || d < -1e-9*want[h.ID] {
				t.Errorf("%d clauses: passage %s scored %v, want %v (the sum)", len(qs), h.ID, h.Score, want[h.ID])
			}
			spread = spread || matched[h.ID] > 1 && matched[h.ID] < len(qs)
		}
		if !spread {
			t.Errorf("%d clauses: no passage matched some but not all clauses: the test tells nothing", len(qs))
		}
	}
}

// How many passages hold a word does not depend on the query Search
// builds: the words query leaves out the stop words of the language it
// detects in the text, and a word given with its translations can be all
// such stop words but one no passage holds ("most" is an English stop
// word and the Czech for bridge). A count of 0 makes an extracted
// answer's evidence weigh the word as missing from the vault.
func TestHoldingWhateverTheQuery(t *testing.T) {
	x := openWith(t, []Doc{
		{ID: "a", Path: "a.md", Lang: "cs", Title: "Praha", Body: "Karlův most stojí přes Vltavu"},
		{ID: "b", Path: "b.md", Lang: "en", Title: "Cheese", Body: "rennet makes milk curdle"},
		{ID: "c", Path: "c.md", Lang: "en", Title: "Tea", Body: "a kettle boils water"},
	})
	ctx := context.Background()
	for _, w := range []FieldWeights{
		{Title: 1, Aliases: 1, Headings: 0.5},
		{Title: 1, Aliases: 1, Headings: 0.5, ByField: true},
		{Title: 1, Aliases: 1, Headings: 0.5, ByField: true, Separate: true},
	} {
		x.SetFieldWeights(w)
		m, total, err := x.Holding(ctx, "jaképrý how most")
		if err != nil {
			t.Fatal(err)
		}
		if m != 1 || total != 3 {
			t.Errorf("%+v: %d of %d passages hold jaképrý/how/most, want 1 of 3", w, m, total)
		}
	}
}

// A word's looser forms (Term.Near) find what the word misses and score
// only there: passages holding the word keep their scores (but for
// Bleve's query norm, one factor for every passage, which the fusion's
// division by the best hit takes out), however many near words they also
// hold, and come first.
func TestNearTermsOnlyWhereTheWordIsMissing(t *testing.T) {
	x := openWith(t, []Doc{
		{ID: "exact", Path: "exact.md", Lang: "en", Body: "the monstra typo and a monstera"},
		{ID: "exact2", Path: "exact2.md", Lang: "en", Body: "monstra, I wrote, in a long line about the plants on the shelf by the window"},
		{ID: "typo", Path: "typo.md", Lang: "en", Body: "water the monstera weekly"},
		{ID: "begun", Path: "begun.md", Lang: "en", Body: "monstrous leaves"},
		{ID: "none", Path: "none.md", Lang: "en", Body: "a fern"},
	})
	ctx := context.Background()
	plain, err := x.SearchTerms(ctx, "monstra", nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(plain); len(got) != 2 || got[0] != "exact" {
		t.Fatalf("without near terms: got %v, want exact and exact2", got)
	}
	near, err := x.SearchTerms(ctx, "monstra", []Term{
		{Text: "monstra", Source: "monstra", Weight: 0.25, Near: NearFuzzy, Edits: 1},
		{Text: "monstr", Source: "monstra", Weight: 0.25, Near: NearPrefix},
	}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(near), " "); got != "exact exact2 typo begun" && got != "exact exact2 begun typo" {
		t.Fatalf("with near terms: got %v, want exact, exact2, then typo and begun", got)
	}
	if a, b := near[0].Score/near[1].Score, plain[0].Score/plain[1].Score; math.Abs(a-b) > 1e-9 {
		t.Errorf("exact over exact2: %v with near terms, %v without", a, b)
	}
}
