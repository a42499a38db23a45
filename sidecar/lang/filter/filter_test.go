package filter

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/da"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fi"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/hu"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/ro"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/quire-app/quire/sidecar/internal/benchdir"
	"github.com/quire-app/quire/sidecar/lang"
)

// analyze runs text through a Bleve analyzer made of the unicode
// tokenizer, lowercasing and the given filters.
func analyze(t *testing.T, text string, filters ...string) []string {
	t.Helper()
	m := mapping.NewIndexMapping()
	err := m.AddCustomAnalyzer("test", map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": append([]string{lowercase.Name}, filters...),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := m.AnalyzeText("test", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tok := range ts {
		out = append(out, string(tok.Term))
	}
	return out
}

func TestFiltersStemThenFold(t *testing.T) {
	tests := []struct {
		l    lang.Lang
		text string
	}{
		{lang.Czech, "Hradech městem Ženou ruce knize"},
		{lang.Italian, "Biciclette formaggi città"},
		{lang.Spanish, "Canciones bicicletas quesos"},
		{lang.English, "Running cheeses histories"},
		{lang.German, "Einstellungen Ordnern"},
		{lang.Dutch, "instellingen mappen"},
		{lang.Swedish, "inställningarna mapparna"},
		{lang.Russian, "настройки папками"},
	}
	for _, tt := range tests {
		got := analyze(t, tt.text, StemName(tt.l), FoldName)
		words := lang.Words(tt.text)
		if len(got) != len(words) {
			t.Fatalf("%s: analyzed %q into %q", tt.l, tt.text, got)
		}
		for i, w := range words {
			if want := lang.Fold(lang.Stem(tt.l, w)); got[i] != want {
				t.Errorf("%s: token %q = %q, want lang.Fold(lang.Stem())'s %q", tt.l, w, got[i], want)
			}
		}
	}
}

func TestName(t *testing.T) {
	// Every language lang.Stem stems has the same stemmer as a filter.
	for _, l := range lang.All {
		if lang.Stem(l, "testing") != "testing" && StemName(l) == "" {
			t.Errorf("StemName(%q) is empty", l)
		}
	}
	for _, l := range []lang.Lang{lang.Portuguese, lang.Russian, lang.Turkish, lang.Dutch} {
		if StemName(l) == "" {
			t.Errorf("StemName(%q) is empty", l)
		}
	}
	if got := StemName(lang.Unknown); got != "" {
		t.Errorf("StemName(Unknown) = %q, want \"\"", got)
	}
}

func TestFoldAfterStem(t *testing.T) {
	// Stemming first lets the Czech stemmer see "ě"; folding then makes
	// "městě" and an unaccented "meste" query meet.
	got := analyze(t, "městě Městem", StemName(lang.Czech), FoldName)
	want := []string{"mest", "mest"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("analyzed = %q, want %q", got, want)
	}
}

// TestStemmersAsBleves: every word of the bench corpora stems through
// the remembered stemmers exactly as through Bleve's own Snowball filter
// for the language (the filters the index used before), twice over so
// that the second pass reads remembered stems; and folds as lang.Fold.
func TestStemmersAsBleves(t *testing.T) {
	var text strings.Builder
	for _, dir := range []string{"fixtures", "ariostea-wiki/corpus", "obsidian-help", "appunti/corpus", "jbranchaud-til/corpus"} {
		root := benchdir.Require(t, dir)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
				return err
			}
			raw, err := os.ReadFile(path)
			text.Write(raw)
			text.WriteByte('\n')
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	var words []string
	for _, w := range analyze(t, text.String()) {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	if len(words) < 10000 {
		t.Fatalf("only %d words", len(words))
	}
	all := strings.Join(words, " ")
	bleves := map[lang.Lang]string{
		lang.English: en.SnowballStemmerName, lang.Italian: it.SnowballStemmerName, lang.Spanish: es.SnowballStemmerName,
		lang.German: de.SnowballStemmerName, lang.French: fr.SnowballStemmerName, lang.Dutch: nl.SnowballStemmerName,
		lang.Swedish: sv.SnowballStemmerName, lang.Danish: da.SnowballStemmerName, lang.Norwegian: no.SnowballStemmerName,
		lang.Finnish: fi.SnowballStemmerName, lang.Hungarian: hu.SnowballStemmerName, lang.Romanian: ro.SnowballStemmerName,
		lang.Russian: ru.SnowballStemmerName, lang.Turkish: tr.SnowballStemmerName,
	}
	for l, bleve := range bleves {
		want := analyze(t, all, bleve)
		for pass := range 2 {
			if got := analyze(t, all, StemName(l)); !slices.Equal(got, want) {
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s, pass %d: %q stems to %q, Bleve's %q", l, pass, words[i], got[i], want[i])
					}
				}
			}
		}
	}
	for _, w := range words {
		if got := analyze(t, w, FoldName); len(got) != 1 || got[0] != lang.Fold(w) {
			t.Fatalf("%q folds to %q, lang.Fold %q", w, got, lang.Fold(w))
		}
	}
}
