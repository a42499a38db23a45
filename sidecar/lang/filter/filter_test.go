package filter

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"

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
