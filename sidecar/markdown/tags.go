package markdown

import (
	"regexp"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// inlineTag matches an Obsidian tag in text: # then letters, digits,
// _ - /, not all digits (Obsidian's rule), after a space or line start.
var inlineTag = regexp.MustCompile(`(?:^|[\s(\[])#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)`)

// Tags returns the inline tags of a note's body in order, without "#":
// read in its text at any depth (in lists, quotes and callouts) and never
// in code, where "#ff0000" is a colour, nor in HTML.
func Tags(body []byte) []string {
	if !mayHoldTag(body) {
		return nil
	}
	return tagsIn(body)
}

// mayHoldTag reports whether a # in body is followed by a character a tag
// can start with (any byte of a character beyond ASCII may be a letter):
// without one, no text inlineTag reads can hold a tag, and the note is
// not parsed. Most notes have none (their # open headings), and parsing
// every note was a twentieth of a cold index.
func mayHoldTag(body []byte) bool {
	for i := 0; i+1 < len(body); i++ {
		if body[i] != '#' {
			continue
		}
		switch c := body[i+1]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '/', c == '-', c >= 0x80:
			return true
		}
	}
	return false
}

// tagsIn is Tags without the check.
func tagsIn(body []byte) []string {
	var out []string
	scan := func(s []byte) {
		for _, m := range inlineTag.FindAllSubmatch(s, -1) {
			out = append(out, string(m[1]))
		}
	}
	if len(body) > parseLimit {
		// Too large to parse (see parseLimit): skip fenced code line by line.
		for _, b := range tile(scanBlocks(body), len(body)) {
			if b.kind != kindAtomic {
				scan(body[b.start:b.end])
			}
		}
		return out
	}
	doc := parser.Parse(text.NewReader(body))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindFencedCodeBlock, ast.KindCodeBlock, ast.KindCodeSpan, ast.KindHTMLBlock, ast.KindRawHTML:
			return ast.WalkSkipChildren, nil
		}
		if t, ok := n.(*ast.Text); ok {
			scan(t.Segment.Value(body))
		}
		return ast.WalkContinue, nil
	})
	return out
}
