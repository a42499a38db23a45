package search

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/bm25"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/lang/syn"
)

func TestFuseKeepsStrongKeywordHits(t *testing.T) {
	kw := []bm25.Hit{{ID: "a", Score: 10}, {ID: "b", Score: 9}, {ID: "c", Score: 2}}
	dh := []index.DenseHit{{ID: "d", Score: 0.9}, {ID: "c", Score: 0.8}, {ID: "e", Score: 0.1}}
	s := Fusion{BM25: 1, Dense: 0.3, Pool: 50}.fuse(Fusion{}.normalise(kw, dh))
	// a: 1.0; b: 0.9; c: 0.2 + 0.3*0.875; d: 0.3; e: 0
	if !(s["a"] > s["b"] && s["b"] > s["c"] && s["c"] > s["d"] && s["d"] > s["e"]) {
		t.Errorf("scores %v: a strong keyword hit must stay ahead of a dense-only one", s)
	}
	if got, want := s["c"], 0.2+0.3*0.875; got < want-1e-6 || got > want+1e-6 {
		t.Errorf("c = %v, want %v (both channels add)", got, want)
	}
}

func TestFuseEmptyChannels(t *testing.T) {
	if s := (Fusion{BM25: 1, Dense: 0.3}).fuse(Fusion{}.normalise(nil, []index.DenseHit{{ID: "x", Score: 0.5}})); len(s) != 0 {
		t.Errorf("a single dense hit has no spread to scale: got %v", s)
	}
	if s := (Fusion{BM25: 1, Dense: 0.3}).fuse(Fusion{}.normalise([]bm25.Hit{{ID: "a", Score: 3}}, nil)); s["a"] != 1 {
		t.Errorf("keyword only: got %v", s)
	}
}

type failingDense struct{}

func (failingDense) SearchDense(context.Context, string, int) ([]index.DenseHit, error) {
	return nil, errors.New("model crashed")
}

func TestHybridFallsBackToKeywordsWithAWarning(t *testing.T) {
	b, err := bm25.Open(filepath.Join(t.TempDir(), "bm25"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Replace(nil, []bm25.Doc{{ID: "a.md#0", Path: "a.md", Lang: "en", Body: "rennet curdles milk", Text: "rennet curdles milk"}}); err != nil {
		t.Fatal(err)
	}
	s := &Searcher{BM25: b, Dense: failingDense{}}
	r, err := s.Query(context.Background(), "rennet", 5, Hybrid)
	if err != nil {
		t.Fatalf("hybrid with a failing embedder: %v, want keyword results", err)
	}
	if r.Channel != BM25 || len(r.Passages) != 1 || !strings.Contains(r.Warning, "model crashed") {
		t.Errorf("got %+v", r)
	}
	if _, err := s.Query(context.Background(), "rennet", 5, Dense); err == nil {
		t.Error("dense alone with a failing embedder: want the error")
	}
}

func TestSynonymsRaiseEnglishPassages(t *testing.T) {
	b, err := bm25.Open(filepath.Join(t.TempDir(), "bm25"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	docs := []bm25.Doc{
		{ID: "a.md#0", Path: "a.md", Lang: "en", Body: "an old instrument: a cello and a bow", Text: "a"},
		{ID: "b.md#0", Path: "b.md", Lang: "en", Body: "an old instrument: a violin and a bow", Text: "b"},
		{ID: "c.md#0", Path: "c.md", Lang: "en", Body: "a violin maker", Text: "c"},
	}
	if err := b.Replace(nil, docs); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const q = "old fiddle instrument"
	off := &Searcher{BM25: b}
	ps, err := off.Search(ctx, q, 5, BM25)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Score != ps[1].Score {
		t.Fatalf("synonyms off: got %v, want a and b tied", ps)
	}
	if e := off.Explain(q); strings.Contains(e, "synonyms") {
		t.Errorf("synonyms off, Explain says:\n%s", e)
	}
	on := &Searcher{BM25: b, Synonyms: &syn.Options{}}
	ps, err = on.Search(ctx, q, 5, BM25)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Path != "b.md" {
		t.Errorf("synonyms on: got %v, want b (violin) first and c, which has no word of the query, not found", ps)
	}
	if e := on.Explain(q); !strings.Contains(e, "fiddle → violin 0.30") {
		t.Errorf("Explain does not show the synonym:\n%s", e)
	}
	// A query in another language is not expanded.
	if e := on.Explain("vecchio violino e archetto"); strings.Contains(e, "synonyms") {
		t.Errorf("Italian query expanded:\n%s", e)
	}
}

func TestDefault(t *testing.T) {
	for _, c := range []struct {
		vectors int
		want    Channel
	}{{0, BM25}, {1, Hybrid}, {2530, Hybrid}} {
		if got := Default(c.vectors); got != c.want {
			t.Errorf("Default(%d) = %s, want %s", c.vectors, got, c.want)
		}
	}
}

func TestDiversifyCapsPassagesPerNote(t *testing.T) {
	var ps []Passage
	for _, p := range []string{"a", "a", "a", "b", "a", "c", "b", "b"} {
		ps = append(ps, Passage{ID: p + strconv.Itoa(len(ps)), Path: p})
	}
	var got []string
	for _, p := range Diversify(ps, 2) {
		got = append(got, p.ID)
	}
	// a2 and a4 wait behind b and c; b7 waits too, in order.
	want := []string{"a0", "a1", "b3", "c5", "b6", "a2", "a4", "b7"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Diversify = %v, want %v", got, want)
	}
	if got := Diversify(ps, 0); len(got) != len(ps) || got[2].ID != "a2" {
		t.Errorf("per 0 must keep the order")
	}
}
