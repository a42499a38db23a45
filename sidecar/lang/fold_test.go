package lang

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFoldTableMatchesNormalising checks Fold's table path against the
// normalising one: every rune the table holds, alone and between others,
// words of the word lists' kinds, and random mixes with combining marks
// and runes outside the table, which must take the slow path.
func TestFoldTableMatchesNormalising(t *testing.T) {
	var words []string
	for r := rune(foldLo); r < foldHi; r++ {
		words = append(words, string(r), "a"+string(r)+"b", string(r)+string(r))
	}
	words = append(words, "žluťoučký kůň", "città", "Straße", "łódź", "e\u0301te\u0301", "ǖǘ", "ŉ", "ǅ", "ǰ", "ȷ", "ø̈", "αβγ", "café\u0301", "\xff\xfe", "ȀȁȂ")
	pool := []rune("aezAZ0 ćčđšžàèéìòùäöüßøłıİĳŀǆǈǲȘșțȚ\u0301\u0308ΆЁё日")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteRune(pool[rng.IntN(len(pool))])
		}
		words = append(words, b.String())
	}
	for _, w := range words {
		if got, want := Fold(w), foldSlow(w); got != want {
			t.Errorf("Fold(%q) = %q, want %q", w, got, want)
		}
	}
}

func BenchmarkFold(b *testing.B) {
	words := []string{"žluťoučký", "città", "straße", "přehazovačka", "über"}
	for b.Loop() {
		for _, w := range words {
			Fold(w)
		}
	}
}
