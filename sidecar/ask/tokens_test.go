package ask

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/quire-app/quire/sidecar/markdown"
)

// TestCountTokensAddsUp holds the piecewise count to cl100k's count of the
// whole text, on this package's notes and sources (prose, code, Unicode,
// runs of spaces and tabs).
func TestCountTokensAddsUp(t *testing.T) {
	texts := []string{"", " ", "  leading", "a  b   c\t d\n\n e", "x, y; z.  Ünïcode ž 東京 😀 1234567 it's", Fence(notes["Inbox/Evil.md"])}
	for _, n := range notes {
		texts = append(texts, n)
	}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, want := countTokens(s), markdown.CountTokens(s); got != want {
			t.Errorf("countTokens = %d, cl100k = %d for %.60q", got, want, s)
		}
	}
}
