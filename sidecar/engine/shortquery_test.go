package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
)

// openVault indexes the notes of vaultDir with keywords only and returns
// the engine.
func openVault(t *testing.T, vaultDir string) *engine.Engine {
	t.Helper()
	stateDir := filepath.Join(t.TempDir(), "state")
	os.MkdirAll(stateDir, 0o755)
	os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte("dense:\n  embedder: none\n"), 0o644)
	e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir, Queue: true, Engine: engine.Options{InboxPoll: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Reindex(context.Background(), false, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// notesFound returns the notes of a keyword search's passages, in rank
// order, each once.
func notesFound(t *testing.T, e *engine.Engine, q string) []string {
	t.Helper()
	r, err := e.Search(context.Background(), engine.Query{Text: q, K: 10, Channel: search.BM25})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, p := range r.Passages {
		if !slices.Contains(notes, p.Path) {
			notes = append(notes, p.Path)
		}
	}
	return notes
}

// A word or two typed in the search box says too little for the query's
// language to be detected; its words are then read by the word lists of
// the vault's languages (lang.ReadWords), so a one-word search finds the
// note in the vault's other language, and a word two of them know alike
// is searched only as it is written.
func TestShortQueriesCrossLanguages(t *testing.T) {
	v := t.TempDir()
	notes := map[string]string{
		"Zahrada/Rajčata.md":  "---\nlang: cs\n---\n# Rajčata na balkoně\n\nRajčata chtějí hodně slunce a zálivku ráno ke kořenům.\n",
		"Zahrada/Kalendář.md": "---\nlang: cs\n---\n# Kalendář zahrady\n\nKaždý den kontrolujeme listy a odstraňujeme plevel.\n",
		"Zahrada/Liška.md":    "---\nlang: cs\n---\n# Liška\n\nLiška si vyhrabala doupě pod kůlnou.\n",
		"Kitchen/Rye.md":      "---\nlang: en\n---\n# Rye loaf\n\nRye bread needs a long proof; the dough is sticky and heavy.\n",
		"Garden/Oak.md":       "---\nlang: en\n---\n# The old oak\n\nThe oak tree by the gate lost a branch in the storm.\n",
		"Wildlife/Fox.md":     "---\nlang: en\n---\n# The fox\n\nThe fox dug its den under the shed behind the garage.\n",
		"Diary/Monday.md":     "---\nlang: en\n---\n# Monday\n\nA long day at the office, and a short walk at the end of the day.\n",
		"Diary/Tuesday.md":    "---\nlang: en\n---\n# Tuesday\n\nA rainy day: I read all afternoon.\n",
	}
	for p, body := range notes {
		full := filepath.Join(v, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(body), 0o644)
	}
	e := openVault(t, v)
	for _, c := range []struct {
		query, first string
	}{
		{"tomatoes", "Zahrada/Rajčata.md"}, // English, only in the Czech note
		{"chleb", "Kitchen/Rye.md"},        // Czech without its accent: bread
		{"strom", "Garden/Oak.md"},         // Czech (and German, not in this vault): tree
	} {
		if got := notesFound(t, e, c.query); len(got) == 0 || got[0] != c.first {
			t.Errorf("%q found %q, want %s first", c.query, got, c.first)
		}
	}
	// "den" is an English word (a lair) and a Czech one (a day): read as
	// either, it would bring every note about days or about lairs.
	got := notesFound(t, e, "den")
	slices.Sort(got)
	if want := []string{"Wildlife/Fox.md", "Zahrada/Kalendář.md"}; !slices.Equal(got, want) {
		t.Errorf("%q found %q, want only the notes with the word itself, %q", "den", got, want)
	}
}

// Short queries on the sample vault, as a user of it would type them in
// the search modal.
func TestShortQueriesOnSampleVault(t *testing.T) {
	v := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "..", "sample-vault"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-R", src+"/.", v).CombinedOutput(); err != nil {
		t.Fatalf("copy sample vault: %v: %s", err, out)
	}
	e := openVault(t, v)
	for _, c := range []struct {
		query, first string
	}{
		{"tomatoes", "Garden/Rajčata.md"},
		{"rajcata", "Garden/Rajčata.md"},
		{"chleb", "Kitchen/Bread baking log.md"},
		{"pasta", "Kitchen/Pasta fresca.md"},
		{"sourdough", "Kitchen/Sourdough starter.md"},
		{"monstera", "Garden/Monstera care.md"},
		{"trams", "Travel/Lisbon 2025.md"},
	} {
		if got := notesFound(t, e, c.query); len(got) == 0 || got[0] != c.first {
			t.Errorf("%q found %q, want %s first", c.query, got, c.first)
		}
	}
	// "pane" is English (a window's), Italian (bread) and Czech (sir):
	// no note has the word, and no reading of it is more likely.
	if got := notesFound(t, e, "pane"); len(got) != 0 {
		t.Errorf("%q found %q, want nothing", "pane", got)
	}
}
