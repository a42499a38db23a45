package dict_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/lang/dict"
)

// LookupFolded, which reads only the blocks where a folded key's
// accented forms can sit, finds what an index of every key's folded form
// finds, on every table: for the folded form of every eighth accented
// key (stems included; all of them take minutes), and for plain words.
func TestLookupFoldedMatchesIndex(t *testing.T) {
	fg := dict.NewFolding(lang.Fold)
	for _, pair := range dict.Pairs() {
		from, to, _ := strings.Cut(pair, "-")
		tab, err := dict.Load(from, to)
		if err != nil {
			t.Fatal(err)
		}
		index := map[string][]string{} // folded → accented keys, in byte order
		var plain []string
		for _, k := range tab.Keys() {
			if isASCII(k) {
				plain = append(plain, k)
				continue
			}
			f := lang.Fold(k)
			index[f] = append(index[f], k)
		}
		for i, k := range plain {
			if _, ok := index[k]; !ok && i%64 == 0 {
				index[k] = nil
			}
		}
		folded := slices.Sorted(maps.Keys(index))
		for i, f := range folded {
			if i%8 != 0 {
				continue
			}
			keys := index[f]
			var want []string
			for _, k := range keys {
				for _, tr := range tab.Lookup(k) {
					if !slices.Contains(want, tr) {
						want = append(want, tr)
					}
				}
			}
			if got := tab.LookupFolded(f, fg); !slices.Equal(got, want) {
				t.Errorf("%s: LookupFolded(%q) = %q, want %q (keys %q)", pair, f, got, want, keys)
			}
		}
	}
}

// Every letter of every table's keys that folding changes is one that
// LookupFolded tries (dict.FoldRanges).
func TestFoldRangesCoverKeys(t *testing.T) {
	for _, pair := range dict.Pairs() {
		from, to, _ := strings.Cut(pair, "-")
		tab, _ := dict.Load(from, to)
		seen := map[rune]bool{}
		for _, k := range tab.Keys() {
			for _, r := range k {
				if r < 0x80 || seen[r] {
					continue
				}
				seen[r] = true
				if lang.Fold(string(r)) == string(r) {
					continue
				}
				in := false
				for _, rg := range dict.FoldRanges {
					in = in || r >= rg[0] && r < rg[1]
				}
				if !in {
					t.Errorf("%s: %q (U+%04X) folds to %q but is outside FoldRanges", pair, r, r, lang.Fold(string(r)))
				}
			}
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
