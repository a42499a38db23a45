package search

import (
	"strings"
	"testing"
)

func TestMatcherWords(t *testing.T) {
	tests := []struct {
		name  string
		langs []string
		query string
		text  string
		want  []string
	}{
		{"inflected forms", []string{"en"}, "feeding starters", "Feed the starter; it feeds on flour. A fed starter rises.", []string{"feed", "starter", "feeds"}},
		{"stop words never", []string{"en"}, "from the fridge", "Straight from the fridge, the loaf spread.", []string{"fridge"}},
		{"accents folded", []string{"en", "it"}, "citta caffè", "La città e il caffe del mattino.", []string{"città", "caffe"}},
		{"nothing", []string{"en"}, "monstera", "Feed the starter.", nil},
		// Issue 25: the query's stop words are not marked in a vault of
		// several languages, nor those of any vault language when the
		// query's is unknown; a query of stop words alone marks them.
		{"query language's stop words in a multilingual vault", []string{"en", "it"}, "how do I bake bread from the starter", "The bread rises from the starter overnight.", []string{"bread", "starter"}},
		{"any vault language's stop words for a short query", []string{"en", "it"}, "the starter", "The starter and the loaf.", []string{"starter"}},
		{"Italian query, English words of it", []string{"it", "en"}, "come si fa il pane con il lievito", "Come and see: il pane con lievito madre.", []string{"pane", "lievito"}},
		{"only stop words", []string{"en", "it"}, "the", "The starter.", []string{"the"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (&Searcher{Langs: tt.langs}).Terms(tt.query).Matcher().Words(tt.text)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
