// Package markdown turns a note's Markdown into passages: heading-aware
// chunks with breadcrumbs and exact byte ranges. It is pure: no I/O.
package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

type blockKind int

const (
	kindText    blockKind = iota // paragraphs, lists, quotes: may be cut
	kindHeading                  // a heading line
	kindAtomic                   // fenced/indented code, tables, HTML: never cut
)

// block is one top-level Markdown block and the bytes up to the next one.
type block struct {
	start, end int
	kind       blockKind
	level      int    // heading level, for kindHeading
	heading    string // heading text without markup, for kindHeading
}

var parser = goldmark.New(goldmark.WithExtensions(extension.Table)).Parser()

// parseBlocks splits body into top-level blocks that tile it exactly:
// block i covers [start_i, start_{i+1}).
func parseBlocks(body []byte) []block {
	doc := parser.Parse(text.NewReader(body))
	var blocks []block
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		pos := nodeStart(n)
		if pos < 0 {
			continue
		}
		pos = lineStart(body, pos)
		b := block{start: pos, kind: kindText}
		switch n := n.(type) {
		case *ast.Heading:
			b.kind, b.level = kindHeading, n.Level
			b.heading = headingText(body, n)
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			b.kind = kindAtomic
		default:
			if n.Kind().String() == "Table" {
				b.kind = kindAtomic
			}
		}
		if len(blocks) > 0 && blocks[len(blocks)-1].start == pos {
			continue
		}
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		return []block{{start: 0, end: len(body), kind: kindText}}
	}
	blocks[0].start = 0
	for i := range blocks {
		if i+1 < len(blocks) {
			blocks[i].end = blocks[i+1].start
		} else {
			blocks[i].end = len(body)
		}
	}
	return blocks
}

// nodeStart finds where a block begins in the source: its recorded
// position, else the first line of it or of any descendant.
func nodeStart(n ast.Node) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	best := -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		if l := c.Lines(); l != nil && l.Len() > 0 {
			if s := l.At(0).Start; best < 0 || s < best {
				best = s
			}
		}
		return ast.WalkContinue, nil
	})
	return best
}

func lineStart(b []byte, pos int) int {
	if pos > len(b) {
		pos = len(b)
	}
	return bytes.LastIndexByte(b[:pos], '\n') + 1
}

func headingText(src []byte, h *ast.Heading) string {
	var sb strings.Builder
	lines := h.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.Write(seg.Value(src))
	}
	return Plain(strings.TrimSpace(sb.String()))
}
