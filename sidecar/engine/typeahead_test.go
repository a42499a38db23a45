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

// Omnisearch's users type half a word and make typos: while a query is
// typed its last word finds the words it begins, and a word of five
// letters or more finds a word one edit away (two from eight letters),
// always below the passages holding the word as typed; the words marked
// in a result include the ones found so.
func TestTypeAheadPrefixAndTypos(t *testing.T) {
	v := t.TempDir()
	notes := map[string]string{
		"Garden/Monstera care.md":      "# Monstera care\n\nWater the monstera when the top of the soil is dry.\n",
		"Kitchen/Sourdough starter.md": "# Sourdough starter\n\nFeed the starter with flour and water every morning.\n",
		"Notes/Typos.md":               "# Typos\n\nI once wrote monstra for the plant's name.\n",
		"Notes/Pottery.md":             "# Pottery\n\nThe kiln fires the clay at night.\n",
	}
	for p, body := range notes {
		full := filepath.Join(v, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(body), 0o644)
	}
	e := openVault(t, v)
	ctx := context.Background()
	find := func(q string, typing bool) search.Result {
		t.Helper()
		r, err := e.Search(ctx, engine.Query{Text: q, K: 10, Channel: search.BM25, Typing: typing})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	paths := func(r search.Result) []string {
		var out []string
		for _, p := range r.Passages {
			if !slices.Contains(out, p.Path) {
				out = append(out, p.Path)
			}
		}
		return out
	}

	// A typo: the exact word first, the word one edit away after it.
	r := find("monstra", false)
	if got := paths(r); !slices.Equal(got, []string{"Notes/Typos.md", "Garden/Monstera care.md"}) {
		t.Errorf("monstra: got %v, want the note holding it, then Monstera care", got)
	}
	for _, p := range r.Passages {
		if p.Path == "Garden/Monstera care.md" {
			if w := r.Terms.Matcher().Words(p.Text); !slices.Contains(w, "monstera") {
				t.Errorf("monstra: Monstera care marks %v, want monstera among them", w)
			}
		}
	}
	// Two words, one of them mistyped: both count for the passage.
	if got := paths(find("monstera watr", false)); len(got) == 0 || got[0] != "Garden/Monstera care.md" {
		t.Errorf("monstera watr: got %v", got)
	}
	// A word under five letters is not loosened: "kil" finds no "kiln".
	if got := paths(find("kil", false)); len(got) != 0 {
		t.Errorf("kil: got %v, want nothing", got)
	}

	// The word being typed is a prefix; the same text searched as a whole
	// query is not.
	r = find("sourd", true)
	if got := paths(r); len(got) == 0 || got[0] != "Kitchen/Sourdough starter.md" {
		t.Fatalf("sourd while typing: got %v", got)
	}
	if w := r.Terms.Matcher().Words(r.Passages[0].Text); !slices.Contains(w, "sourdough") {
		t.Errorf("sourd while typing marks %v, want sourdough", w)
	}
	if got := paths(find("sourd", false)); slices.Contains(got, "Kitchen/Sourdough starter.md") {
		t.Errorf("sourd, not typing: got %v, want no prefix match", got)
	}
	// Only the last word is a prefix: "sta" begins "starter" and the
	// finished "sourdough" is matched as it is.
	if got := paths(find("sourdough sta", true)); len(got) != 1 || got[0] != "Kitchen/Sourdough starter.md" {
		t.Errorf("sourdough sta while typing: got %v, want the starter note only", got)
	}
}
