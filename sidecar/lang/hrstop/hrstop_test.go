package hrstop

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

func TestFilterDropsCroatianStopWords(t *testing.T) {
	f, err := registry.NewCache().TokenFilterNamed(StopName)
	if err != nil {
		t.Fatal(err)
	}
	out := f.Filter(analysis.TokenStream{{Term: []byte("biti")}, {Term: []byte("kuća")}, {Term: []byte("može")}})
	if len(out) != 1 || string(out[0].Term) != "kuća" {
		t.Errorf("got %d tokens, want only kuća", len(out))
	}
}
