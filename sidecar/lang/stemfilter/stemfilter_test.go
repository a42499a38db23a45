package stemfilter

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/quire-app/quire/sidecar/lang"
)

// analyze runs text through a Bleve analyzer made of the unicode
// tokenizer, lowercasing and l's stemmer filter.
func analyze(t *testing.T, l lang.Lang, text string) []string {
	t.Helper()
	m := mapping.NewIndexMapping()
	err := m.AddCustomAnalyzer("test", map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{lowercase.Name, Name(l)},
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

func TestFiltersStemLikeLang(t *testing.T) {
	tests := []struct {
		l    lang.Lang
		text string
	}{
		{lang.Czech, "Hradech městem Ženou ruce knize"},
		{lang.Italian, "Biciclette formaggi città"},
		{lang.Spanish, "Canciones bicicletas quesos"},
		{lang.English, "Running cheeses histories"},
	}
	for _, tt := range tests {
		got := analyze(t, tt.l, tt.text)
		words := lang.Words(tt.text)
		if len(got) != len(words) {
			t.Fatalf("%s: analyzed %q into %q", tt.l, tt.text, got)
		}
		for i, w := range words {
			if want := lang.Stem(tt.l, w); got[i] != want {
				t.Errorf("%s: token %q = %q, want lang.Stem's %q", tt.l, w, got[i], want)
			}
		}
	}
}

func TestName(t *testing.T) {
	for _, l := range lang.All {
		if Name(l) == "" {
			t.Errorf("Name(%q) is empty", l)
		}
	}
	if got := Name(lang.Unknown); got != "" {
		t.Errorf("Name(Unknown) = %q, want \"\"", got)
	}
}
