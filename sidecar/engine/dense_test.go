package engine_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/index"
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
	r := run(t, notes, withEmbedder(t, emb))
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

// TestStatusWhileEmbedding: while new passages are embedded, status says
// how many have vectors so far, at what rate, and the time the rest would
// take at it; when the embedding ends, it says nothing of either. The
// embedder lets one batch of 32 through and holds the next, so the
// embedding stops half way for as long as the test looks.
func TestStatusWhileEmbedding(t *testing.T) {
	emb := embedtest.NewHeld()
	r := run(t, notes, withEmbedder(t, emb))
	before, err := r.e.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if before.Embedding != nil {
		t.Fatalf("status before any embedding runs: %+v, want none", before.Embedding)
	}
	emb.Batches.Store(1)
	// Fifty notes arrive at once (a folder moved in), so that one pass
	// reads them and one embedding has them all to do.
	batch := t.TempDir()
	for i := range 50 {
		writeNotes(t, batch, map[string]string{fmt.Sprintf("n%02d.md", i): fmt.Sprintf("# Note %d\n\nThe keel resists leeway, note %d.\n", i, i)})
	}
	if err := os.Rename(batch, filepath.Join(r.vault, "Batch")); err != nil {
		t.Fatal(err)
	}
	var st engine.Status
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st, err = r.e.Status(t.Context()); err != nil {
			t.Fatal(err)
		}
		if st.Embedding != nil && st.Embedding.Done > before.Vectors.Embedded || time.Now().After(deadline) {
			break
		}
	}
	p := st.Embedding
	if p == nil || p.Total != st.Vectors.Passages || p.Done != st.Vectors.Embedded || p.Done >= p.Total {
		t.Fatalf("status while embedding: %+v, vectors %+v; want the passages done so far, short of every one", p, st.Vectors)
	}
	if p.PerSecond <= 0 || p.Left <= 0 {
		t.Errorf("status while embedding: %.1f passages a second, %v left; want a rate and an estimate", p.PerSecond, p.Left)
	}
	close(emb.Release)
	r.waitIndexed()
	after, err := r.e.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if after.Embedding != nil || after.Vectors.Embedded != after.Vectors.Passages {
		t.Errorf("status after embedding: %+v, vectors %+v; want no embedding and every passage embedded", after.Embedding, after.Vectors)
	}
}

// withEmbedder gives the engine's index the embedder emb.
func withEmbedder(t *testing.T, emb index.Embedder) func(*engine.Options) {
	return func(o *engine.Options) {
		st, err := state.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := o.Index.EnableDense(st, emb); err != nil {
			t.Fatal(err)
		}
	}
}

// keywordsOnly is the one wording of a search that gave way to keywords
// because the embedder could not serve (search.Searcher.Do decides).
var keywordsOnly = regexp.MustCompile(`embedder unavailable \(.+\), showing keyword results`)

// TestKeywordsOnlyOneWording: whichever front end asks, and whether no
// embedder is configured or the one configured fails, a search that gives
// way to keywords says so in one wording, decided in one place. Before,
// the engine said "hybrid search is not available (no embedder)", search
// "embedder unavailable, showing keyword results: …", ask nothing at all
// and ingest fell back on its own.
func TestKeywordsOnlyOneWording(t *testing.T) {
	ctx := t.Context()
	none := run(t, notes)
	emb := &embedtest.Bag{}
	down := run(t, notes, withEmbedder(t, emb))
	emb.Down.Store(true)
	for name, r := range map[string]*running{"no embedder": none, "embedder down": down} {
		res, err := r.e.Search(ctx, engine.Query{Text: "rye levain", Channel: search.Hybrid})
		if err != nil || res.Channel != search.BM25 || !keywordsOnly.MatchString(res.Warning) {
			t.Errorf("%s: search: channel %q, warning %q, %v", name, res.Channel, res.Warning, err)
		}
		ans, err := r.e.Ask(ctx, engine.Question{Text: "How do I bake rye bread with levain?", Channel: search.Hybrid}, nil)
		if err != nil || !slices.ContainsFunc(ans.Warnings, keywordsOnly.MatchString) {
			t.Errorf("%s: ask: warnings %q, %v", name, ans.Warnings, err)
		}
	}
	// Asked for by name (a command run in process), no embedder is an error.
	if _, err := none.e.Search(ctx, engine.Query{Text: "rye levain", Channel: search.Dense, Strict: true}); !errors.Is(err, search.ErrUnavailable) {
		t.Errorf("strict dense without an embedder: %v, want ErrUnavailable", err)
	}
}
