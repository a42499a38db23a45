package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
)

// openSample copies the repository's sample vault into a temporary
// folder and opens it with the built-in embedder, every passage embedded.
func openSample(t *testing.T) *engine.Engine {
	t.Helper()
	v := filepath.Join(t.TempDir(), "vault")
	if err := os.CopyFS(v, os.DirFS("../../sample-vault")); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	e, err := engine.Open(engine.Setup{Vault: v, State: state, Foreground: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ctx := context.Background()
	if err := e.EnableDense(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	} else if r.VectorsErr != nil {
		t.Fatal(r.VectorsErr)
	}
	return e
}

// Dense hits always exist, so without a floor a query of made-up letters
// filled k rows by meaning. Below the built-in embedder's calibrated
// cosine a passage that only the dense channel found is no match: the
// nonsense query finds nothing in either channel, while a real word still
// finds its note first and a query by meaning alone still finds passages.
func TestDenseFloorDropsNonsense(t *testing.T) {
	e := openSample(t)
	ctx := context.Background()
	for _, ch := range []search.Channel{search.Hybrid, search.Dense} {
		r, err := e.Search(ctx, engine.Query{Text: "qwxz", K: 10, Channel: ch})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Passages) != 0 {
			t.Errorf("%s: qwxz found %d passages, first %s (score %.3f); want none", ch, len(r.Passages), r.Passages[0].ID, r.Passages[0].Score)
		}
	}
	r, err := e.Search(ctx, engine.Query{Text: "sourdough starter", K: 10, Channel: search.Hybrid})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Passages) == 0 || r.Passages[0].Path != "Kitchen/Sourdough starter.md" {
		t.Fatalf("sourdough starter: got %v", r.Passages)
	}
	for _, p := range r.Passages {
		if p.Path == "Garden/Monstera care.md" {
			t.Errorf("sourdough starter: the Monstera note (%s, %.3f) came back; it shares no word and no meaning", p.ID, p.Score)
		}
	}
	r, err = e.Search(ctx, engine.Query{Text: "watering a houseplant", K: 5, Channel: search.Dense})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Passages) == 0 || r.Passages[0].Path != "Garden/Monstera care.md" {
		t.Errorf("a paraphrase by meaning: got %v, want the Monstera note first", r.Passages)
	}
}
