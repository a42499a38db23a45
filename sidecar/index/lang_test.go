package index

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/internal/benchdir"
	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/vault"
)

// detectAll returns the language noteLang gives each note under root,
// counted by language, with the paths of the notes given each one.
func detectAll(t *testing.T, root string) map[lang.Lang][]string {
	t.Helper()
	got := map[lang.Lang][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		note, err := vault.Parse(rel, raw)
		if err != nil {
			return nil // an unreadable note is the reader's test, not this one's
		}
		l := noteLang(note)
		got[l] = append(got[l], rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestDetectedLanguageOfRealNotes checks the language detected for every
// note of two real vaults against what their folders say: obsidian-help's
// five translations, one folder each, and appunti, an Italian vault whose
// notes are full of formulas and English terms. Before prose was told
// from formulas, 37 of appunti's Italian notes were French ("\par{x}").
func TestDetectedLanguageOfRealNotes(t *testing.T) {
	help := benchdir.Require(t, "obsidian-help", "corpus-multi")
	for _, code := range []string{"cs", "de", "en", "es", "it"} {
		want := lang.Parse(code)
		for l, paths := range detectAll(t, filepath.Join(help, code)) {
			if l != want {
				t.Errorf("obsidian-help %s: %d notes detected as %q, e.g. %s", code, len(paths), l, paths[0])
			}
		}
	}

	got := detectAll(t, benchdir.Require(t, "appunti", "corpus"))
	total := 0
	for _, paths := range got {
		total += len(paths)
	}
	// Italian, English (the notes that are a line of English terms) or
	// too little to tell: anything else is a wrong stemmer and word list.
	wrong := 0
	for l, paths := range got {
		if l != lang.Italian && l != lang.English && l != lang.Unknown {
			wrong += len(paths)
			t.Logf("appunti: %d notes detected as %q, e.g. %s", len(paths), l, paths[0])
		}
	}
	if it := len(got[lang.Italian]); it < total*95/100 {
		t.Errorf("appunti: %d of %d notes detected as Italian, want at least 95%%", it, total)
	}
	if wrong > total/100 {
		t.Errorf("appunti: %d of %d notes detected as neither Italian nor English, want at most 1%%", wrong, total)
	}
}
