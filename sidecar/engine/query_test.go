package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
)

// TestSearch: a passage is the exact bytes of its note; without an
// embedder the default channel is keywords, and hybrid asked for gets
// keyword results that say so; no match is an empty list; a query over
// the limit is refused as too large.
func TestSearch(t *testing.T) {
	r := run(t, notes)
	res, err := r.e.Search(t.Context(), engine.Query{Text: "starter hydration", K: 3, Channel: search.BM25})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Passages) == 0 || res.Channel != search.BM25 || res.Warning != "" {
		t.Fatalf("got %+v, want bm25 passages without warning", res)
	}
	p := res.Passages[0]
	raw, err := os.ReadFile(filepath.Join(r.vault, filepath.FromSlash(p.Path)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != "Kitchen/Sourdough.md" || p.Title != "Sourdough" || p.ID == "" {
		t.Errorf("top passage %+v, want Kitchen/Sourdough.md", p)
	}
	if got := string(raw[p.Start:p.End]); got != p.Text {
		t.Errorf("text %q is not bytes %d..%d of the note (%q)", p.Text, p.Start, p.End, got)
	}

	res, err = r.e.Search(t.Context(), engine.Query{Text: "starter"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Channel != search.BM25 || res.Warning != "" || len(res.Passages) == 0 {
		t.Errorf("default channel: got channel %q warning %q, %d passages", res.Channel, res.Warning, len(res.Passages))
	}
	res, err = r.e.Search(t.Context(), engine.Query{Text: "starter", Channel: search.Hybrid})
	if err != nil {
		t.Fatal(err)
	}
	if res.Channel != search.BM25 || !strings.Contains(res.Warning, "keyword") || len(res.Passages) == 0 {
		t.Errorf("hybrid without an embedder: got channel %q warning %q, %d passages", res.Channel, res.Warning, len(res.Passages))
	}

	res, err = r.e.Search(t.Context(), engine.Query{Text: "zzzunknownword", Channel: search.BM25})
	if err != nil || res.Passages == nil || len(res.Passages) != 0 {
		t.Errorf("no match: got %+v, %v; want an empty list", res, err)
	}
	_, err = r.e.Search(t.Context(), engine.Query{Text: strings.Repeat("a ", engine.MaxQuery)})
	wantKind(t, err, engine.TooLarge)
}

// TestSearchFilter: a folder and a tag filter before the cut to k.
func TestSearchFilter(t *testing.T) {
	r := run(t, notes)
	res, err := r.e.Search(t.Context(), engine.Query{Text: "water flour", K: 1, Filter: search.Filter{Folder: "Garden"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Passages) != 1 || res.Passages[0].Path != "Garden/Tomatoes.md" {
		t.Errorf("folder Garden, k 1: got %+v, want Garden/Tomatoes.md", res.Passages)
	}
	res, err = r.e.Search(t.Context(), engine.Query{Text: "water flour", K: 3, Filter: search.Filter{Tag: "nowhere"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Passages) != 0 {
		t.Errorf("a tag no note has: got %d passages, want none", len(res.Passages))
	}
}

// TestRelated: the notes closest to a note (never itself, each once, with
// a passage of its own) or to a text; exactly one of the two is asked
// for, and an unknown note is not found.
func TestRelated(t *testing.T) {
	r := run(t, notes)
	got, warning, err := r.e.Related(t.Context(), engine.Related{Path: "Kitchen/Sourdough.md", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Path != "Kitchen/Rye bread.md" || warning != "" {
		t.Fatalf("related to Sourdough: %+v, want Rye bread first", got)
	}
	seen := map[string]bool{}
	for _, n := range got {
		if n.Path == "Kitchen/Sourdough.md" {
			t.Error("the queried note is in its own related notes")
		}
		if seen[n.Path] {
			t.Errorf("%s listed twice", n.Path)
		}
		seen[n.Path] = true
	}

	got, _, err = r.e.Related(t.Context(), engine.Related{Text: "water the tomatoes", K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "Garden/Tomatoes.md" {
		t.Errorf("related to text: %+v, want Garden/Tomatoes.md only", got)
	}

	_, _, err = r.e.Related(t.Context(), engine.Related{Path: "Kitchen/Sourdough.md", Text: "x"})
	wantKind(t, err, engine.Invalid)
	_, _, err = r.e.Related(t.Context(), engine.Related{})
	wantKind(t, err, engine.Invalid)
	_, _, err = r.e.Related(t.Context(), engine.Related{Path: "Nope.md"})
	wantKind(t, err, engine.NotFound)
}

// TestRelatedExclude: excluded folders' notes are left out before the cut
// to k: k notes still come back, none from an excluded folder.
func TestRelatedExclude(t *testing.T) {
	r := run(t, notes)
	got, _, err := r.e.Related(t.Context(), engine.Related{Path: "Kitchen/Sourdough.md", K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "Kitchen/Rye bread.md" {
		t.Fatalf("fixture: related to Sourdough, k 1: %+v, want Rye bread", got)
	}
	got, _, err = r.e.Related(t.Context(), engine.Related{Path: "Kitchen/Sourdough.md", K: 1, Exclude: []string{"Kitchen/"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || strings.HasPrefix(got[0].Path, "Kitchen/") {
		t.Errorf("related to Sourdough without Kitchen/, k 1: %+v, want one note from elsewhere", got)
	}
}

// A related note carries its other matching passages, for its expanded
// row: of that note only, not its best passage again, best first, a few.
func TestRelatedNoteCarriesItsOtherPassages(t *testing.T) {
	// Sections long enough to be passages of their own.
	filler := strings.Repeat("Crumb, crust and a slow fermentation matter more than the recipe says. ", 30)
	r := run(t, map[string]string{
		"Rye.md": "# Rye\n\n## Levain\n\nBuild the rye levain from a ripe sourdough starter. " + filler + "\n\n" +
			"## Proofing\n\nA rye sourdough proofs faster once the levain is ripe. " + filler + "\n\n" +
			"## Baking\n\nBake the rye sourdough loaf in a hot oven with steam. " + filler + "\n\n" +
			"## Storage\n\nKeep rye sourdough bread wrapped in linen. " + filler + "\n\n" +
			"## Flour\n\nWhole rye flour feeds a sourdough starter well. " + filler + "\n",
		"Tomatoes.md": "# Tomatoes\n\nWater the tomatoes in the morning.\n",
	})
	got, _, err := r.e.Related(t.Context(), engine.Related{Text: "rye sourdough levain starter", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Path != "Rye.md" {
		t.Fatalf("related: %+v, want Rye.md first", got)
	}
	n := got[0]
	if len(n.More) == 0 || len(n.More) > 3 {
		t.Fatalf("Rye.md carries %d more passages, want 1 to 3", len(n.More))
	}
	seen := map[string]bool{n.ID: true}
	last := n.Score
	for _, m := range n.More {
		if m.Path != "Rye.md" || seen[m.ID] {
			t.Errorf("more passage %s of %s: want another passage of Rye.md", m.ID, m.Path)
		}
		if m.Score > last {
			t.Errorf("more passages out of order: %v after %v", m.Score, last)
		}
		seen[m.ID], last = true, m.Score
	}
}

// TestNote: only an indexed note is read, by its clean vault path: an
// escape, an absolute path, a backslash, a dot folder are invalid; a
// note that is not there (or differs in case) is not found.
func TestNote(t *testing.T) {
	r := run(t, notes)
	// A file beside the vault that a path escape would reach.
	if err := os.WriteFile(filepath.Join(filepath.Dir(r.vault), "outside.md"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := r.e.Note(t.Context(), "Garden/Tomatoes.md", false)
	if err != nil || got != notes["Garden/Tomatoes.md"] {
		t.Errorf("got %q, %v", got, err)
	}
	tests := []struct {
		path string
		kind engine.Kind
	}{
		{"", engine.Invalid},
		{"../outside.md", engine.Invalid},
		{"Garden/../../outside.md", engine.Invalid},
		{"Garden/../Garden/Tomatoes.md", engine.Invalid},
		{"./Garden/Tomatoes.md", engine.Invalid},
		{"/etc/passwd", engine.Invalid},
		{r.vault + "/Garden/Tomatoes.md", engine.Invalid},
		{`Garden\Tomatoes.md`, engine.Invalid},
		{".obsidian/secret.md", engine.Invalid},
		{"Garden/.hidden/x.md", engine.Invalid},
		{"Garden/Potatoes.md", engine.NotFound},
		{"garden/tomatoes.md", engine.NotFound},
	}
	for _, tt := range tests {
		_, err := r.e.Note(t.Context(), tt.path, false)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != tt.kind {
			t.Errorf("note %q: got %v, want %s", tt.path, err, tt.kind)
		}
	}
}

// TestNoteAfterSwap: an indexed note replaced by a link out of the vault,
// a link to /dev/zero or a FIFO is refused at once.
func TestNoteAfterSwap(t *testing.T) {
	r := run(t, notes)
	outside := filepath.Join(filepath.Dir(r.vault), "outside.md")
	os.WriteFile(outside, []byte("outside secret"), 0o644)
	note := filepath.Join(r.vault, "Garden", "Tomatoes.md")
	for name, swap := range map[string]func() error{
		"link outside":      func() error { return os.Symlink(outside, note) },
		"link to /dev/zero": func() error { return os.Symlink("/dev/zero", note) },
		"fifo":              func() error { return mkfifo(note) },
	} {
		os.Remove(note)
		if err := swap(); err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		got, err := r.e.Note(t.Context(), "Garden/Tomatoes.md", false)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.NotFound {
			t.Errorf("%s: note = %.40q, %v; want not_found", name, got, err)
		}
	}
}
