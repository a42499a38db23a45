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
