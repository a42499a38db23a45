package search

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/quire-app/quire/sidecar/bm25"
)

// BenchmarkSearchAndMarks is what the websocket server does for each
// keystroke of the search modal: a keyword search of an English query in
// an English and Italian vault (the query is translated into Italian),
// then the marks of every passage returned.
//
//	go test -run '^$' -bench SearchAndMarks -benchmem ./search
func BenchmarkSearchAndMarks(b *testing.B) {
	s := benchVault(b)
	ctx := context.Background()
	const q = "fresh cheese and milk from the mountain farm"
	b.ResetTimer()
	for range b.N {
		r, err := s.Query(ctx, q, 10, BM25)
		if err != nil || len(r.Passages) == 0 {
			b.Fatalf("%d passages, %v", len(r.Passages), err)
		}
		m := r.Terms.Matcher()
		for _, p := range r.Passages {
			m.Words(p.Text)
		}
	}
}

// BenchmarkShortSearchAndMarks is BenchmarkSearchAndMarks for what the
// search modal sends while the user types "milk farm": one keystroke's
// query per op, most of them too short for their language to be
// detected, so their words are read one by one (lang.ReadWords).
//
//	go test -run '^$' -bench ShortSearchAndMarks -benchmem ./search
func BenchmarkShortSearchAndMarks(b *testing.B) {
	s := benchVault(b)
	ctx := context.Background()
	keys := []string{"mi", "mil", "milk", "milk f", "milk fa", "milk far", "milk farm"}
	search := func(q string) {
		r, err := s.Query(ctx, q, 10, BM25)
		if err != nil {
			b.Fatal(err)
		}
		m := r.Terms.Matcher()
		for _, p := range r.Passages {
			m.Words(p.Text)
		}
	}
	for _, q := range keys {
		search(q) // the word lists' folded indexes, once per process
	}
	b.ResetTimer()
	for i := range b.N {
		search(keys[i%len(keys)])
	}
}

// benchVault is the benchmarks' searcher over an English and Italian
// vault of 200 notes each.
func benchVault(b *testing.B) *Searcher {
	ix, err := bm25.Open(filepath.Join(b.TempDir(), "bm25"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	var docs []bm25.Doc
	for i := range 200 {
		en := fmt.Sprintf("Note %d: cheese and milk from the farm, fresh bread and the mountain air", i)
		it := fmt.Sprintf("Nota %d: il formaggio e il latte della fattoria, il pane fresco e l'aria di montagna", i)
		docs = append(docs,
			bm25.Doc{ID: fmt.Sprintf("en%d.md#0", i), Path: fmt.Sprintf("en%d.md", i), Lang: "en", Body: en, Text: en},
			bm25.Doc{ID: fmt.Sprintf("it%d.md#0", i), Path: fmt.Sprintf("it%d.md", i), Lang: "it", Body: it, Text: it})
	}
	if err := ix.Replace(nil, docs); err != nil {
		b.Fatal(err)
	}
	return &Searcher{BM25: ix, Langs: []string{"en", "it"}}
}
