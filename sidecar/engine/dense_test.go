package engine_test

import (
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/internal/embedtest"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/state"
)

// TestDense runs an index with an embedder: the pass embeds every
// passage, status reports full coverage, search answers as hybrid, and
// when the embedder goes down, search falls back to keywords and says so
// instead of failing.
func TestDense(t *testing.T) {
	emb := &embedtest.Bag{} // 64 dimensions
	r := run(t, notes, func(o *engine.Options) {
		st, err := state.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := o.Index.EnableDense(st, emb); err != nil {
			t.Fatal(err)
		}
	})
	st, err := r.e.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if v := st.Vectors; v.Passages == 0 || v.Embedded != v.Passages || v.Embedder != "bag-test" {
		t.Errorf("status vectors %+v; want every passage embedded by bag-test", v)
	}
	res, err := r.e.Search(t.Context(), engine.Query{Text: "rye levain"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Channel != search.Hybrid || res.Warning != "" || len(res.Passages) == 0 || res.Passages[0].Path != "Kitchen/Rye bread.md" {
		t.Errorf("hybrid: channel %q, warning %q, %d passages", res.Channel, res.Warning, len(res.Passages))
	}

	emb.Down.Store(true)
	res, err = r.e.Search(t.Context(), engine.Query{Text: "rye levain", Channel: search.Hybrid})
	if err != nil {
		t.Fatal(err)
	}
	if res.Channel != search.BM25 || !strings.Contains(res.Warning, "keyword") || len(res.Passages) == 0 {
		t.Errorf("embedder down: channel %q, warning %q, %d passages; want keyword results with a warning", res.Channel, res.Warning, len(res.Passages))
	}
}
