package markdown

import (
	"slices"
	"testing"
)

// TestTagsSkipOnlyNotesWithoutTags: the notes Tags does not parse (no #
// before a tag's character) have no tags when parsed, in the bench
// corpora, the fixtures and a generated vault.
func TestTagsSkipOnlyNotesWithoutTags(t *testing.T) {
	skipped, tagged := 0, 0
	for name, s := range corpusTexts(t) {
		got, want := Tags([]byte(s)), tagsIn([]byte(s))
		if !slices.Equal(got, want) {
			t.Fatalf("%s: tags %q, parsed %q", name, got, want)
		}
		if !mayHoldTag([]byte(s)) {
			skipped++
		}
		if len(want) > 0 {
			tagged++
		}
	}
	if skipped == 0 || tagged == 0 {
		t.Errorf("%d notes skipped, %d with tags", skipped, tagged)
	}
	for _, s := range []string{"**#bold**", "(#paren)", "#é", "x #_a", "#/x", "#-y"} {
		if got := Tags([]byte(s)); len(got) == 0 {
			t.Errorf("%q: no tag", s)
		}
	}
}
