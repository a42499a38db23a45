package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/ingest/compile"
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

// Related pages stop where the vault's dense floor does (issue 25: the
// first row was always "strong", and an ingested article on cast iron
// listed Canvas and Bases syntax): a note no closer to the open note's
// text than made-up words come to some passage is left out.
func TestRelatedStopsAtTheFloor(t *testing.T) {
	e := openSample(t)
	ctx := context.Background()
	all, _, err := e.Related(ctx, engine.Related{Path: "Garden/Rajčata.md", K: 10, Unfloored: true})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := e.Related(ctx, engine.Related{Path: "Garden/Rajčata.md", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	floor, err := e.Searcher().Floor.Cosine(ctx, e.Searcher().Dense)
	if err != nil {
		t.Fatal(err)
	}
	var below int
	for _, n := range all {
		if n.Cosine < floor {
			below++
		}
	}
	if below == 0 || len(got) != len(all)-below || len(got) == 0 {
		t.Fatalf("Rajčata: %d related, %d of %d below the floor %.3f: want those left out and some kept", len(got), below, len(all), floor)
	}
	for _, n := range got {
		if n.Cosine < floor {
			t.Errorf("Rajčata: %s at cosine %.3f, below the floor %.3f", n.Path, n.Cosine, floor)
		}
	}
	if got[0].Path != "Kitchen/Pasta fresca.md" {
		t.Errorf("Rajčata: first %s, want the pasta note (tomatoes in both)", got[0].Path)
	}

}

// An ingested source's Connections come from the same search, and stop
// at the same floor: an article on cast iron listed five unrelated notes.
func TestConnectionsStopAtTheFloor(t *testing.T) {
	e := openSample(t)
	ctx := context.Background()
	const article = "Seasoning a cast iron skillet: wipe a thin layer of oil over the pan and heat it until the fat polymerises. Cast iron rusts when it is left wet."
	s := e.Searcher()
	cos, floor, err := s.NoteCosines(ctx, article)
	if err != nil {
		t.Fatal(err)
	}
	loose, err := e.Search(ctx, engine.Query{Text: article, K: 5, Channel: search.BM25})
	if err != nil {
		t.Fatal(err)
	}
	var far int
	for _, p := range loose.Passages {
		if cos[p.Path] < floor {
			far++
		}
	}
	if far == 0 {
		t.Fatalf("by keywords alone the article finds %v, none below the floor %.3f: the test shows nothing", loose.Passages, floor)
	}
	pages, err := engine.CompileOptions(e).Related(ctx, article, 5, compile.Leave{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if cos[p.Path] < floor {
			t.Errorf("connection %s at cosine %.3f, below the floor %.3f", p.Path, cos[p.Path], floor)
		}
	}
}
