package plstop

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

func TestFilterDropsPolishStopWords(t *testing.T) {
	f, err := registry.NewCache().TokenFilterNamed(StopName)
	if err != nil {
		t.Fatal(err)
	}
	// "żeby" sits on a line with a "|" comment: the comment must not be
	// part of the word.
	out := f.Filter(analysis.TokenStream{{Term: []byte("aby")}, {Term: []byte("dom")}, {Term: []byte("żeby")}})
	if len(out) != 1 || string(out[0].Term) != "dom" {
		t.Errorf("got %d tokens, want only dom", len(out))
	}
}
