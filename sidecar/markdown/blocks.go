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
	kindText    blockKind = iota // paragraphs and oversized lists or quotes: may be cut
	kindHeading                  // a heading line
	kindAtomic                   // code, tables, HTML, callouts, quotes, lists: never cut
)

// block is one top-level Markdown block and the bytes up to the next one.
type block struct {
	start, end int
	kind       blockKind
	level      int      // heading level, for kindHeading
	heading    string   // heading text without markup, for kindHeading
	path       []string // the heading path this heading opens, set by sections
}

var parser = goldmark.New(goldmark.WithExtensions(extension.Table)).Parser()

// parseLimit is the largest body parsed as CommonMark. The parser's cost
// grows with nesting depth times lines and its memory with the tree, so a
// note of thousands of nested list markers took seconds and hundreds of MB
// (issue 13); a body beyond this is read by scanBlocks, line by line, in
// linear time. Real notes that large are exports and logs, rarely lists.
const parseLimit = 512 << 10

// parseBlocks splits body into top-level blocks that tile it exactly:
// block i covers [start_i, start_{i+1}). A list or quote of up to
// wholeBytes stays one atomic block: a callout keeps its title with its
// body, and code nested in a list or callout is never cut. A longer list
// is cut only between its items.
func parseBlocks(body []byte, wholeBytes int) []block {
	if len(body) > parseLimit {
		return tile(scanBlocks(body), len(body))
	}
	doc := parser.Parse(text.NewReader(body))
	var blocks []block
	add := func(pos int, b block) {
		pos = lineStart(body, pos)
		if len(blocks) > 0 && blocks[len(blocks)-1].start >= pos {
			return
		}
		b.start = pos
		blocks = append(blocks, b)
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		pos := nodeStart(n)
		if pos < 0 {
			continue
		}
		b := block{kind: kindText}
		switch n := n.(type) {
		case *ast.Heading:
			b.kind, b.level = kindHeading, n.Level
			b.heading = headingText(body, n)
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.Blockquote:
			b.kind = kindAtomic
		case *ast.List:
			b.kind = kindAtomic
			if end := nodeEnd(n.NextSibling(), len(body)); end-pos > wholeBytes {
				// Too long to keep whole: each item is a block of its own.
				for it := n.FirstChild(); it != nil; it = it.NextSibling() {
					if p := nodeStart(it); p >= 0 {
						add(p, block{kind: kindAtomic})
					}
				}
				continue
			}
		default:
			if n.Kind().String() == "Table" {
				b.kind = kindAtomic
			}
		}
		add(pos, b)
	}
	blocks = tile(blocks, len(body))
	// An atomic block far longer than a passage is cut after all: one
	// passage of megabytes would serve no reader.
	for i := range blocks {
		if blocks[i].kind == kindAtomic && blocks[i].end-blocks[i].start > atomicLimit(wholeBytes) {
			blocks[i].kind = kindText
		}
	}
	return blocks
}

// atomicLimit is the size past which even code or a table is cut.
func atomicLimit(wholeBytes int) int { return 64 * wholeBytes }

// tile makes blocks cover [0, n) exactly.
func tile(blocks []block, n int) []block {
	if len(blocks) == 0 {
		return []block{{start: 0, end: n, kind: kindText}}
	}
	blocks[0].start = 0
	for i := range blocks {
		if i+1 < len(blocks) {
			blocks[i].end = blocks[i+1].start
		} else {
			blocks[i].end = n
		}
	}
	return blocks
}

// nodeEnd is where the node after a block starts, or n at the end.
func nodeEnd(next ast.Node, n int) int {
	for ; next != nil; next = next.NextSibling() {
		if p := nodeStart(next); p >= 0 {
			return p
		}
	}
	return n
}

// scanBlocks reads a body too large to parse: ATX headings and fenced code
// are recognised line by line, every other run of lines is text.
func scanBlocks(body []byte) []block {
	blocks := make([]block, 0, maxScanBlocks(body))
	var fence Fence
	prevText := false
	for pos := 0; pos < len(body); {
		end := bytes.IndexByte(body[pos:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += pos + 1
		}
		opened := !fence.Open()
		switch {
		case fence.Line(string(body[pos:min(end, pos+16)])):
			if opened {
				blocks = append(blocks, block{start: pos, kind: kindAtomic})
				prevText = false
			}
		default:
			if lvl := atxLevel(body[pos:end]); lvl > 0 {
				h := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(string(body[pos:end])), "#"))
				blocks = append(blocks, block{start: pos, kind: kindHeading, level: lvl, heading: Plain(h)})
				prevText = false
			} else if !prevText {
				blocks = append(blocks, block{start: pos, kind: kindText})
				prevText = true
			}
		}
		pos = end
	}
	return blocks
}

// maxScanBlocks bounds the blocks scanBlocks finds: each heading or fence
// line opens at most one, and the text after it one more. Sizing the slice
// once spares 100k headings a dozen copies of it.
func maxScanBlocks(body []byte) int {
	n := 1
	for pos := 0; pos < len(body); {
		i := pos
		for i < len(body) && i < pos+3 && body[i] == ' ' {
			i++
		}
		if i < len(body) && (body[i] == '#' || body[i] == '`' || body[i] == '~') {
			n += 2
		}
		end := bytes.IndexByte(body[pos:], '\n')
		if end < 0 {
			break
		}
		pos += end + 1
	}
	return n
}

// atxLevel returns the level of an ATX heading line ("## x"), or 0.
func atxLevel(line []byte) int {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	n := 0
	for i+n < len(line) && line[i+n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0
	}
	if i+n < len(line) && line[i+n] != ' ' && line[i+n] != '\t' && line[i+n] != '\n' && line[i+n] != '\r' {
		return 0
	}
	return n
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
			return ast.WalkStop, nil // the first line found is the earliest
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
