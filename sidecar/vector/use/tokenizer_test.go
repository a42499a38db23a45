package use

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// encodeLattice is a line-by-line port of the reference encoder (build the
// lattice, then relax it by end position), kept to check the streaming
// version in encode against random text.
func (t *tokenizer) encodeLattice(text string) []int32 {
	syms := prepare(text)
	if len(syms) == 0 {
		return []int32{}
	}
	type arc struct {
		start int
		score float64
		id    int32
	}
	n := len(syms)
	ends := make([][]arc, n+1)
	for i := 0; i < n; i++ {
		found := false
		node := int32(0)
		for j := i; j < n; j++ {
			next := t.child(node, syms[j])
			if next < 0 {
				break
			}
			node = next
			if nd := &t.nodes[node]; nd.end {
				ends[j+1] = append(ends[j+1], arc{i, nd.score, nd.id})
				found = true
			}
		}
		if !found {
			ends[i+1] = append(ends[i+1], arc{i, 0, unknownID})
		}
	}
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for end := 0; end <= n; end++ {
		for _, a := range ends[end] {
			s := a.score + best[a.start]
			if best[end] == 0 || s >= best[end] {
				best[end] = s
				words[end] = a.id
			}
		}
	}
	var out []int32
	prevUnknown := false
	for i := n; i > 0; i -= t.utf16[words[i]] {
		id := words[i]
		if !(prevUnknown && id == unknownID) {
			out = append(out, id)
		}
		prevUnknown = id == unknownID
	}
	slices.Reverse(out)
	if out == nil {
		out = []int32{}
	}
	return out
}

func TestEncodeMatchesLattice(t *testing.T) {
	m := mustLoad(t)
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("abcdefghijklmnopqrstuvwxyz  ,.:;!?'-0123456789éèàìòùčřžšýáíůúÄÖÜß🧀€\t\n:)")
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for j := r.IntN(60); j > 0; j-- {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		text := b.String()
		got, want := m.tok.encode(text), m.tok.encodeLattice(text)
		if !slices.Equal(got, want) {
			t.Fatalf("encode(%q) = %v, lattice %v", text, got, want)
		}
	}
}

func TestPrepare(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a b", "▁a▁b"},
		{" x", "▁▁x"},
		{"ﬁ", "▁fi"},      // NFKC expands the ligature
		{"Ｆ", "▁F"},       // and folds full-width letters
		{"a\tb", "▁a\tb"}, // only U+0020 becomes the separator
		{"Já", "▁Já"},     // composed, not decomposed
	}
	for _, tt := range tests {
		if got := string(prepare(tt.in)); got != tt.want {
			t.Errorf("prepare(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
