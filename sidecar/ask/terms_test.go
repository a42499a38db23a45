package ask

import (
	"context"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/search"
)

// countingSearcher is the searcher, counting the texts read apart from a
// search.
type countingSearcher struct {
	*search.Searcher
	reads int
}

func (c *countingSearcher) Terms(q string) search.Terms {
	c.reads++
	return c.Searcher.Terms(q)
}

// TestExtractUsesTheSearchsTranslations: an extracted answer to an
// English question finds the Spanish sentence through the translations
// the search made of the question (sixty → sesenta, days → días), and does
// not translate the question a second time.
func TestExtractUsesTheSearchsTranslations(t *testing.T) {
	f := newFixture(t, notes)
	cs := &countingSearcher{Searcher: f.searcher}
	a := f.asker(nil)
	a.Search = cs
	ans, err := a.Ask(context.Background(), Query{Question: "Which cheese is cured for sixty days?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Extracted || ans.Refused || len(ans.Citations) == 0 || ans.Citations[0].Path != "Cocina/Queso.md" || !strings.Contains(ans.Text, "leche de oveja") {
		t.Fatalf("got %q (evidence %.3f), want the sentence of Cocina/Queso.md", ans.Text, ans.Evidence)
	}
	if cs.reads != 0 {
		t.Errorf("the question was translated %d more time(s) for extraction, want none: the search's terms are at hand", cs.reads)
	}
}
