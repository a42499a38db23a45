package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/internal/embedtest"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/state"
)

// filterVault writes a vault where the query's best passages are all in
// Bakery/ and the few inside Garden/ (tagged #Plot/beds) rank below them
// in every channel: a filter applied to the unfiltered top k finds none.
func filterVault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 15 {
		write(fmt.Sprintf("Bakery/Loaf %02d.md", i), "# Sourdough starter\n\nSourdough starter: feed the sourdough starter.\n")
	}
	for i := range 4 {
		write(fmt.Sprintf("Garden/Bed %d.md", i), fmt.Sprintf("# Bed %d\n\nThe raised bed by the fence gets compost, mulch, straw, "+
			"leaf mould and the spent sourdough starter from the kitchen once a week in spring. #Plot/beds\n", i))
	}
	write("Garden/Shed.md", "# Shed\n\nTools, twine and seed packets. Nothing about bread here.\n")
	return dir
}

func openFiltered(t *testing.T) *search.Searcher {
	t.Helper()
	ctx := context.Background()
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix, err := index.Open(filterVault(t), st, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.EnableDense(st, &embedtest.Bag{Size: 256}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Embed(ctx); err != nil {
		t.Fatal(err)
	}
	langs, err := ix.Languages()
	if err != nil {
		t.Fatal(err)
	}
	return &search.Searcher{BM25: ix.BM25, Dense: ix, Fusion: search.DefaultFusion, Langs: langs}
}

// TestFilterComesBeforeTheCut: with k smaller than the passages outside
// the filter that outrank those inside it, a filtered search still
// returns k passages, all inside, on every channel; and the same query
// unfiltered returns none of them (the fixture is what it claims).
func TestFilterComesBeforeTheCut(t *testing.T) {
	s := openFiltered(t)
	ctx := context.Background()
	const q, k = "sourdough starter", 3
	for _, ch := range []search.Channel{search.BM25, search.Dense, search.Hybrid} {
		all, err := s.Query(ctx, q, k, ch)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range all.Passages {
			if strings.HasPrefix(p.Path, "Garden/") {
				t.Fatalf("%s unfiltered: %s is in the top %d; the fixture must rank Garden/ lower", ch, p.Path, k)
			}
		}
		for _, f := range []search.Filter{{Folder: "Garden"}, {Folder: "/Garden/"}, {Tag: "#plot"}, {Tag: "Plot/Beds"}, {Folder: "Garden", Tag: "plot"},
			{Exclude: []string{"Bakery"}}, {Exclude: []string{"/Bakery/", "Attic"}}, {Tag: "plot", Exclude: []string{"Attic"}}} {
			r, err := s.QueryFiltered(ctx, q, k, ch, f)
			if err != nil {
				t.Fatalf("%s %+v: %v", ch, f, err)
			}
			if len(r.Passages) != k {
				t.Errorf("%s %+v: %d passages, want %d (4 notes in Garden/ match)", ch, f, len(r.Passages), k)
			}
			for _, p := range r.Passages {
				if !strings.HasPrefix(p.Path, "Garden/Bed ") {
					t.Errorf("%s %+v: %s passed the filter", ch, f, p.Path)
				}
			}
		}
		if ch == search.BM25 {
			// The filter only selects: a passage scores as it does unfiltered.
			wide, err := s.Query(ctx, q, 50, ch)
			if err != nil {
				t.Fatal(err)
			}
			score := map[string]float64{}
			for _, p := range wide.Passages {
				score[p.ID] = p.Score
			}
			for _, f := range []search.Filter{{Folder: "Garden", Tag: "plot"}, {Exclude: []string{"Bakery"}}} {
				r, err := s.QueryFiltered(ctx, q, k, ch, f)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range r.Passages {
					if d := p.Score - score[p.ID]; d > 1e-9 || d < -1e-9 {
						t.Errorf("%+v: %s scores %v filtered, %v unfiltered", f, p.ID, p.Score, score[p.ID])
					}
				}
			}
		}
		for _, f := range []search.Filter{{Folder: "Gard"}, {Tag: "plo"}, {Folder: "Bakery", Tag: "plot"}, {Folder: "Garden", Exclude: []string{"Garden"}}} {
			r, err := s.QueryFiltered(ctx, q, k, ch, f)
			if err != nil {
				t.Fatalf("%s %+v: %v", ch, f, err)
			}
			if len(r.Passages) != 0 {
				t.Errorf("%s %+v: got %s, want nothing (a folder or tag is matched whole)", ch, f, r.Passages[0].Path)
			}
		}
		// An excluded folder is matched whole too: "Bak" leaves Bakery/ in.
		r, err := s.QueryFiltered(ctx, q, k, ch, search.Filter{Exclude: []string{"Bak"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Passages) != k || !strings.HasPrefix(r.Passages[0].Path, "Bakery/") {
			t.Errorf("%s exclude Bak: %v, want Bakery/ first", ch, r.Passages)
		}
	}
}

// TestFilterToOneNote: a question about one note searches that note's
// passages alone, on every channel, though fifteen others outrank it.
func TestFilterToOneNote(t *testing.T) {
	s := openFiltered(t)
	ctx := context.Background()
	for _, ch := range []search.Channel{search.BM25, search.Dense, search.Hybrid} {
		r, err := s.QueryFiltered(ctx, "sourdough starter", 5, ch, search.Filter{Note: "Garden/Bed 2.md"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Passages) == 0 {
			t.Errorf("%s: nothing from Garden/Bed 2.md", ch)
		}
		for _, p := range r.Passages {
			if p.Path != "Garden/Bed 2.md" {
				t.Errorf("%s: %s passed a filter to Garden/Bed 2.md", ch, p.Path)
			}
		}
		if r, _ := s.QueryFiltered(ctx, "sourdough starter", 5, ch, search.Filter{Note: "Garden/Bed"}); len(r.Passages) != 0 {
			t.Errorf("%s: a path that names no note let %s through", ch, r.Passages[0].Path)
		}
	}
}

// TestExcludeNotesBeforeTheCut: notes left out by name go before the cut
// to k, on every channel: with the fifteen Bakery loaves that outrank the
// garden beds excluded one by one, k passages still come back, none of
// them a loaf; a name matches a whole path only.
func TestExcludeNotesBeforeTheCut(t *testing.T) {
	s := openFiltered(t)
	ctx := context.Background()
	var loaves []string
	for i := range 15 {
		loaves = append(loaves, fmt.Sprintf("Bakery/Loaf %02d.md", i))
	}
	const k = 3
	for _, ch := range []search.Channel{search.BM25, search.Dense, search.Hybrid} {
		r, err := s.QueryFiltered(ctx, "sourdough starter", k, ch, search.Filter{ExcludeNotes: loaves})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Passages) != k {
			t.Errorf("%s: %d passages, want %d", ch, len(r.Passages), k)
		}
		for _, p := range r.Passages {
			if strings.HasPrefix(p.Path, "Bakery/") {
				t.Errorf("%s: excluded %s came back", ch, p.Path)
			}
		}
		r, err = s.QueryFiltered(ctx, "sourdough starter", k, ch, search.Filter{ExcludeNotes: []string{"Bakery/Loaf 0"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Passages) != k || !strings.HasPrefix(r.Passages[0].Path, "Bakery/") {
			t.Errorf("%s exclude Bakery/Loaf 0: %v, want the loaves first", ch, r.Passages)
		}
	}
}
