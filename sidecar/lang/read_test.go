package lang

import (
	"slices"
	"strings"
	"testing"
)

func TestReadWords(t *testing.T) {
	enCs := []Lang{English, Czech}
	for _, c := range []struct {
		query string
		among []Lang
		want  []Reading
	}{
		// A headword of one list only.
		{"tomatoes", enCs, []Reading{{"tomatoes", English}}},
		{"Rajčata", enCs, []Reading{{"rajčata", Czech}}},
		// Typed without accents: the folded headword.
		{"rajcata", enCs, []Reading{{"rajcata", Czech}}},
		// A headword beats a stem of another list (Czech "~tomat").
		{"tomato", enCs, []Reading{{"tomato", English}}},
		// A tie: English "den" (a lair) and Czech "den" (a day).
		{"den", enCs, nil},
		// "strom" is Czech and German; German is not in the vault.
		{"strom", enCs, []Reading{{"strom", Czech}}},
		{"strom", []Lang{English, Czech, German}, nil},
		// Stop words of the vault's languages, short words, numbers.
		{"the a je 2026 to", enCs, nil},
		{"die", []Lang{English, German}, nil},
		// Mixed words, each read on its own, each once.
		{"tomatoes zahrada tomatoes", enCs, []Reading{{"tomatoes", English}, {"zahrada", Czech}}},
		// Nothing to translate into: no English, or English alone.
		{"tomatoes", []Lang{English}, nil},
		{"zahrada", []Lang{Czech, Italian}, nil},
		// A name no list knows.
		{"ariosto", enCs, nil},
	} {
		if got := ReadWords(c.query, c.among); !slices.Equal(got, c.want) {
			t.Errorf("ReadWords(%q, %v) = %v, want %v", c.query, c.among, got, c.want)
		}
	}
}

// However long a query whose language is unknown, at most MaxReadings of
// its words are read: each adds translations.
func TestReadWordsCapped(t *testing.T) {
	q := strings.Repeat("tomatoes garden bread cheese window flour water leaves apple ", 3)
	got := ReadWords(q, []Lang{English, Czech, German, Italian, Spanish})
	if len(got) != MaxReadings {
		t.Errorf("%d readings of %d distinct words, want %d", len(got), 9, MaxReadings)
	}
}

func BenchmarkReadWords(b *testing.B) {
	among := []Lang{English, Czech, Italian, German, Spanish}
	ReadWords("rajcata", among) // the folded indexes, once per process
	b.ResetTimer()
	for range b.N {
		ReadWords("tomatoes garden", among)
	}
}
