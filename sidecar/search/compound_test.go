package search

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/quire-app/quire/sidecar/bm25"
)

// A German compound no note holds is searched as parts notes do hold: the
// note about kinds of cheese comes first for "Käsesorten", ahead of a
// note that shares another word of the question.
func TestGermanCompoundIsSearchedAsItsParts(t *testing.T) {
	b, err := bm25.Open(filepath.Join(t.TempDir(), "bm25"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	docs := []bm25.Doc{
		{ID: "Käse.md#0", Path: "Käse.md", Lang: "de", Title: "Laden",
			Body: "Der Käse hat viele Sorten, die der Laden jede Woche wechselt."},
		{ID: "Alt.md#0", Path: "Alt.md", Lang: "de", Title: "Archiv",
			Body: "Hier finde ich alte Notizen, nach Datum sortiert."},
	}
	for i := range docs {
		docs[i].Text = docs[i].Body
	}
	if err := b.Replace(nil, docs); err != nil {
		t.Fatal(err)
	}
	s := &Searcher{BM25: b, Langs: []string{"de"}}
	ps, err := s.Search(context.Background(), "Wo finde ich die Käsesorten?", 5, BM25)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || ps[0].Path != "Käse.md" {
		t.Errorf("got %v, want Käse.md first", paths(ps))
	}
	// A word some German passage holds is searched as it is.
	if q, err := s.compoundParts(context.Background(), "Welche Sorten gibt es?", "de"); err != nil || q != "Welche Sorten gibt es?" {
		t.Errorf("compoundParts = %q, %v: a held word is not split", q, err)
	}
}

func paths(ps []Passage) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Path
	}
	return out
}
