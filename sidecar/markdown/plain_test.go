package markdown

import "testing"

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
