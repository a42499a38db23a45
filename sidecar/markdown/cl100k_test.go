package markdown

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"

	"github.com/quire-app/quire/sidecar/internal/benchdir"
	"github.com/quire-app/quire/sidecar/internal/vaultgen"
)

// codecOffsets is the codec's own answer: every token of s, split by the
// codec's expression and merges in one call.
func codecOffsets(s string) []int {
	return offsetsOf(CL100K().(cl100k).encode(s))
}

// corpusDirs are the bench corpora and fixtures the tokenizer and the
// chunker are checked on.
var corpusDirs = []string{"fixtures", "ariostea-wiki/corpus", "obsidian-help", "appunti/corpus", "jbranchaud-til/corpus"}

// corpusTexts returns every Markdown file of the bench corpora and the
// fixtures, and the notes of a small generated vault, by name.
func corpusTexts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range corpusDirs {
		root := benchdir.Require(t, dir)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
				return err
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			out[dir+"/"+filepath.ToSlash(rel)] = string(raw)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	gen := t.TempDir()
	paths, err := vaultgen.Write(gen, vaultgen.Options{Notes: 300, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		raw, err := os.ReadFile(filepath.Join(gen, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		out["genvault/"+p] = string(raw)
	}
	return out
}

// cl100kExpression is the codec's expression, compiled as the codec
// compiles it (codec.NewCl100kBase).
var cl100kExpression = regexp2.MustCompile(`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`, regexp2.None)

// expressionPieces cuts s with the codec's expression.
func expressionPieces(t testing.TB, s string) []string {
	var out []string
	m, err := cl100kExpression.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = cl100kExpression.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// handPieces cuts s as cl100k.Offsets does.
func handPieces(s string) []string {
	var out []string
	for i := skipDel(s, 0); i < len(s); i = skipDel(s, i) {
		n := pieceLen(s[i:])
		out = append(out, s[i:i+n])
		i += n
	}
	return out
}

// TestFastCL100KMatchesCodec: the hand-written split and the remembered
// pieces give every token exactly where the codec puts it, on every
// note of the bench corpora, the fixtures and a generated vault.
func TestFastCL100KMatchesCodec(t *testing.T) {
	tok := CL100K()
	texts := corpusTexts(t)
	for name, s := range texts {
		if len(s) > exactLimit {
			s = s[:exactLimit] // what the chunker counts exactly at most
		}
		if got, want := handPieces(s), expressionPieces(t, s); !slices.Equal(got, want) {
			t.Fatalf("%s: pieces differ: %s", name, firstPieceDiff(got, want))
		}
		// Twice: the second time from the remembered pieces.
		for range 2 {
			if got, want := tok.Offsets(s), codecOffsets(s); !slices.Equal(got, want) {
				t.Fatalf("%s: %s", name, firstDiff(s, got, want))
			}
		}
	}
	if len(texts) < 1000 {
		t.Errorf("only %d texts", len(texts))
	}
}

// TestFastCL100KOnOddText draws strings from the characters each of the
// expression's alternatives turns on: contractions in any case, letters
// with marks, digits of other scripts, every kind of white space and
// line end, symbols, and invalid UTF-8.
func TestFastCL100KOnOddText(t *testing.T) {
	parts := []string{"'", "s", "S", "t", "re", "RE", "Ve", "m", "LL", "lL", "d", "ſ", "K", "İ", "ı",
		"a", "Z", "é", "e\u0301", "\u0301", "ß", "日本", "한", "ا", "ж",
		"0", "7", "١", "٣", "½", "Ⅻ", "²",
		" ", "  ", "\t", "\u00a0", "\u2003", "\u3000", "\u0085", "\v", "\f",
		"\n", "\r", "\r\n", "\n\n", " \n", "\u2028",
		".", ",", "-", "--", "#", "*", "`", "```", "|", "[[", "]]", "(", ")", "/", "\\", "_", "😀", "\u200d", "\ufeff",
		"\x7f", "\xff", "\xc3", "\xe2\x82"}
	r := rand.New(rand.NewPCG(1, 2))
	tok := CL100K()
	for i := range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(24) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		if utf8.ValidString(s) {
			if got, want := handPieces(s), expressionPieces(t, s); !slices.Equal(got, want) {
				t.Fatalf("string %d %q: pieces differ: %s", i, s, firstPieceDiff(got, want))
			}
		}
		if got, want := tok.Offsets(s), codecOffsets(s); !slices.Equal(got, want) {
			t.Fatalf("string %d %q: %s", i, s, firstDiff(s, got, want))
		}
		if got, want := CountTokens(s), len(codecOffsets(s)); got != want {
			t.Fatalf("string %d %q: CountTokens %d, the codec %d", i, s, got, want)
		}
	}
}

// FuzzFastCL100K holds the split to the codec's on any text.
func FuzzFastCL100K(f *testing.F) {
	for _, s := range []string{"Hello world's end", "a  b\n\n c", "x\r\n\t y", "123456 7", " ..!\n", "'LL'Ve"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if utf8.ValidString(s) {
			if got, want := handPieces(s), expressionPieces(t, s); !slices.Equal(got, want) {
				t.Fatalf("%q: pieces differ: %s", s, firstPieceDiff(got, want))
			}
		}
		if got, want := CL100K().Offsets(s), codecOffsets(s); !slices.Equal(got, want) {
			t.Fatalf("%q: %s", s, firstDiff(s, got, want))
		}
	})
}

// firstDiff says where two token offset lists part.
func firstDiff(s string, got, want []int) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	at := 0
	switch {
	case i < len(want):
		at = want[i]
	case i < len(got):
		at = got[i]
	}
	near := s[max(at-20, 0):min(at+20, len(s))]
	return fmt.Sprintf("token %d of %d differs near %q: got %v, want %v", i, len(want), near, got[i:min(i+5, len(got))], want[i:min(i+5, len(want))])
}

func firstPieceDiff(got, want []string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("piece %d: got %q, want %q", i, got[i:min(i+3, len(got))], want[i:min(i+3, len(want))])
}
