package markdown

import (
	"strings"
	"testing"
)

// TestPathologicalBodies runs the bodies BenchmarkPathological times,
// and a body over parseLimit with headings (which crashed Tags), through
// Split and Tags: no panic, passages within the bound, none empty.
func TestPathologicalBodies(t *testing.T) {
	big := "# One\n\nSee #first here.\n\n" + strings.Repeat("Some words of a long export. ", parseLimit/29) + "\n\n## Two\n\nAnd #second.\n"
	p := Params{MaxTokens: 256, OverlapTokens: 64, MinTokens: 64}
	c := New(p)
	for name, body := range map[string][]byte{
		"over-parse-limit": []byte(big),
		"nested-list-4MB":  nestedList(4 << 20),
		"list-markers-4MB": markerLines(4 << 20),
		"headings-100k":    manyHeadings(100000),
	} {
		chunks := c.Split(body, 0)
		if len(chunks) == 0 || len(chunks) > PassageBound(body, p) {
			t.Errorf("%s: %d passages (bound %d)", name, len(chunks), PassageBound(body, p))
		}
		for i, ch := range chunks {
			if strings.TrimSpace(string(body[ch.Start:ch.End])) == "" {
				t.Errorf("%s: passage %d is empty", name, i)
				break
			}
		}
		tags := Tags(body)
		if name == "over-parse-limit" && strings.Join(tags, ",") != "first,second" {
			t.Errorf("%s: tags %v, want first, second", name, tags)
		}
	}
}
