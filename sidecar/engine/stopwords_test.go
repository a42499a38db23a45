package engine_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quire-app/quire/sidecar/lang"
)

// Issue 25: in a vault of several languages a short query of unknown
// language had its Italian article searched in the English notes, whose
// analyzer keeps "la", so a note on musical scales matched "la monstera".
// A stop word of any of the vault's languages is not searched when the
// query's language is unknown, unless the query is only stop words.
func TestStopWordsOfTheVaultLanguages(t *testing.T) {
	v := t.TempDir()
	notes := map[string]string{
		"Garden/Monstera care.md": "# Monstera care\n\nWater the monstera when the top of the soil is dry, and keep the plant out of direct sun.\n",
		"Musica/Beatles.md":       "---\nlang: it\n---\n# I Beatles\n\nIl gruppo inglese suonava canzoni che hanno cambiato la storia del rock.\n",
		"Music/Scales.md":         "# Scales\n\nSing the major scale as do, re, mi, fa, sol, la, ti and back to do.\n",
	}
	for p, body := range notes {
		full := filepath.Join(v, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(body), 0o644)
	}
	if l := lang.Detect("la monstera"); l != lang.Unknown {
		t.Fatalf("the test needs a query of unknown language; %q reads as %s", "la monstera", l)
	}
	e := openVault(t, v)
	if got := notesFound(t, e, "la monstera"); !slices.Equal(got, []string{"Garden/Monstera care.md"}) {
		t.Errorf("la monstera: %v, want the Monstera note alone", got)
	}
	// Only stop words: they are searched.
	if got := notesFound(t, e, "la"); len(got) == 0 {
		t.Errorf("la: nothing, want the notes holding it")
	}
}
