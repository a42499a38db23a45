package search

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestReadOverview(t *testing.T) {
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"Give me an overview of my notes", true},
		{"What projects am I working on?", true},
		{"what do I know about sourdough", true},
		{"Dammi una panoramica dei miei appunti", true},
		{"Přehled mých poznámek", true},
		{"Überblick über meine Projekte", true},
		{"todo sobre el jardín", true},
		{"Who is my dentist?", false},
		{"list the ingredients of brie", false},
		{"What is the wifi network called?", false},
		{"elenco dei formaggi", false},
	} {
		if got := ReadOverview(c.q); got != c.want {
			t.Errorf("ReadOverview(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestHubsByNameAndShape(t *testing.T) {
	for _, c := range []struct {
		path             string
		linkLines, lines int
		want             bool
	}{
		{"Home.md", 0, 0, true},
		{"index.md", 0, 500, true},
		{"README.md", 1, 2000, true},
		{"Projects MOC.md", 0, 10, true},
		{"Maps/MOC - Cooking.md", 0, 10, true},
		{"00 Index.md", 0, 10, true},
		{"Reading list.md", 20, 24, true},     // a list of links
		{"Algebra/★ algebra.md", 6, 12, true}, // half of it
		{"cheese/brie.md", 3, 120, false},     // an article that opens three lines with a link
		{"Areas/Car.md", 1, 4, false},
		{"Links.md", 4, 4, false}, // too few to map anything
		{"Mocha.md", 0, 10, false},
	} {
		if got := IsHub(c.path, c.linkLines, c.lines); got != c.want {
			t.Errorf("IsHub(%q, %d, %d) = %v, want %v", c.path, c.linkLines, c.lines, got, c.want)
		}
	}
	got := RankHubs([]HubNote{{"Areas/Maps MOC.md", 9, 40}, {"Reading list.md", 20, 24}, {"README.md", 3, 900}, {"Home.md", 8, 10}, {"Car.md", 1, 40}})
	if want := []string{"Home.md", "README.md", "Areas/Maps MOC.md", "Reading list.md"}; !slices.Equal(got, want) {
		t.Errorf("RankHubs = %v, want %v", got, want)
	}
}

// A note's text searched for related pages asks for no overview and names
// no days, whatever words it holds.
func TestLongTextAsksNothing(t *testing.T) {
	text := "An overview of what I am working on now, last week and in March 2024. " + strings.Repeat("More words of the note follow here. ", 10)
	if ReadOverview(text) {
		t.Error("a note's text read as an overview question")
	}
	if w := ReadWhen(text, time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)); w.Current || w.Span() {
		t.Errorf("a note's text read as a question about time: %+v", w)
	}
	if !ReadOverview("An overview of what I am working on") {
		t.Error("the question itself is not an overview")
	}
}
