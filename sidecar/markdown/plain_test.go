package markdown

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestLinkLines(t *testing.T) {
	for _, c := range []struct {
		body         string
		links, lines int
	}{
		{"# Map\n\n- [[A]]\n- [[B]] — the second\n* [c](c.md)\n1. **[[D]]**\n- [ ] [[E]]\n", 5, 5},
		{"Prose with a [[link]] inside.\n\n![[pic.png]]\n---\n```\n- [[not a line]]\n```\n", 0, 2},
		{"[[Lead]] opens the line.\nAnd text.\n", 1, 2},
	} {
		links, lines := LinkLines(c.body)
		if links != c.links || lines != c.lines {
			t.Errorf("LinkLines(%q) = %d, %d, want %d, %d", c.body, links, lines, c.links, c.lines)
		}
	}
}

// expressionWikilinks is replaceWikilinks as the expression does it, as
// Plain did before.
func expressionWikilinks(s string, f func(inner string, embed bool) string) string {
	return wikilinkRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := wikilinkRe.FindStringSubmatch(m)
		return f(sub[2], sub[1] == "!")
	})
}

// TestReplaceWikilinksAsTheExpression: the hand-written scan replaces the
// same links as the expression, in every note of the bench corpora, the
// fixtures and a generated vault, and in strings of brackets, bangs and
// line ends.
func TestReplaceWikilinksAsTheExpression(t *testing.T) {
	mark := func(inner string, embed bool) string { return fmt.Sprintf("<%v|%s>", embed, inner) }
	check := func(name, s string) {
		t.Helper()
		for _, f := range []func(string, bool) string{mark, plainLink} {
			if got, want := replaceWikilinks(s, f), expressionWikilinks(s, f); got != want {
				t.Fatalf("%s: got %.200q, want %.200q", name, got, want)
			}
		}
	}
	links := 0
	for name, s := range corpusTexts(t) {
		check(name, s)
		links += strings.Count(s, "[[")
	}
	if links < 1000 {
		t.Errorf("only %d links in the corpora", links)
	}
	parts := []string{"[", "]", "[[", "]]", "!", "![[", "a", "é", "|", "#", "\n", " ", "\xff"}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 50000 {
		var b strings.Builder
		for range 1 + r.IntN(16) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		check(fmt.Sprint("string ", i), b.String())
	}
}
