package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
)

// A passage that merged small sections is named by the section holding
// the match (issue 25: "embed a pdf" was shown under "Embed an audio
// file", the first of them); a match in the first section keeps its name,
// and a note changed since it was indexed keeps the indexed one.
func TestMergedPassageNamedByTheMatch(t *testing.T) {
	v := t.TempDir()
	note := "---\ntitle: Embed files\n# a comment, not a heading\n---\n# Embed files\n\n## Embed an audio file\n\nUse an embed with the audio file's name.\n\n## Embed a PDF\n\nTo embed a PDF, link it with an exclamation mark.\n\n### Choose a page\n\nAdd the page number after a hash.\n"
	os.WriteFile(filepath.Join(v, "Embed files.md"), []byte(note), 0o644)
	e := openVault(t, v)
	find := func(q string) search.Passage {
		t.Helper()
		r, err := e.Search(context.Background(), engine.Query{Text: q, K: 5, Channel: search.BM25})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Passages) != 1 {
			t.Fatalf("%s: %d passages, want the note as one merged passage", q, len(r.Passages))
		}
		return r.Passages[0]
	}
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"embed a pdf", []string{"Embed a PDF"}},
		{"page number", []string{"Embed a PDF", "Choose a page"}},
		{"audio file", []string{"Embed an audio file"}},
	} {
		if got := find(tt.q).Headings; !slices.Equal(got, tt.want) {
			t.Errorf("%s: headings %q, want %q", tt.q, got, tt.want)
		}
	}
	// Edited since: the passage is no longer the file's text, and keeps
	// the name it was indexed with.
	os.WriteFile(filepath.Join(v, "Embed files.md"), []byte("# Moved\n\n"+note), 0o644)
	if got, want := find("embed a pdf").Headings, []string{"Embed an audio file"}; !slices.Equal(got, want) {
		t.Errorf("after an edit: headings %q, want %q", got, want)
	}
}

// Issue 25: after one Save as note, the answer took the first places of
// the question it answered and the note it quoted fell below it. A saved
// answer's passages now follow the last passage of the notes it cites.
func TestSavedAnswerBelowItsSources(t *testing.T) {
	v := t.TempDir()
	os.WriteFile(filepath.Join(v, "Embed files.md"), []byte("# Embed files\n\n## Embed a PDF\n\nTo embed a PDF in a note, link the PDF file with an exclamation mark before the link.\n"), 0o644)
	os.WriteFile(filepath.Join(v, "Pottery.md"), []byte("# Pottery\n\nThe kiln fires the clay at night.\n"), 0o644)
	e := openVault(t, v)
	ctx := context.Background()
	ans, err := e.Ask(ctx, engine.Question{Text: "How do I embed a PDF in a note?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Citations) == 0 {
		t.Fatalf("no citation: %q", ans.Text)
	}
	saved, err := e.SaveAnswer(ans)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	r, err := e.Search(ctx, engine.Query{Text: "embed a pdf", K: 10, Channel: search.BM25})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range r.Passages {
		order = append(order, p.Path)
	}
	src, ansAt := slices.Index(order, "Embed files.md"), slices.Index(order, saved)
	if src < 0 || ansAt < 0 || ansAt < src {
		t.Fatalf("embed a pdf: %q, want Embed files.md above the saved answer %s", order, saved)
	}
	for i := 1; i < len(r.Passages); i++ {
		if r.Passages[i].Score > r.Passages[i-1].Score {
			t.Errorf("scores rise at %d: %v", i, r.Passages)
		}
	}
}
