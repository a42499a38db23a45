package extract

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/vault"
	"mime"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/unicode/norm"
)

// Text extracts a plain text file. The charset comes from contentType if it
// names one; otherwise the bytes are UTF-8 when they are valid UTF-8 and
// Windows-1252 (a superset of Latin-1) when not. The title is the first
// line when it is short enough to be one, else the file name.
func Text(data []byte, name, contentType string) (*Doc, error) {
	s := decodeText(data, contentType)
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, &Error{Name: name, Kind: ErrEmpty}
	}
	doc := &Doc{Title: titleFromName(name)}
	if first, _, _ := strings.Cut(s, "\n"); len(first) <= 120 && strings.TrimSpace(first) != "" {
		doc.Title = oneLine(first)
	}
	var md strings.Builder
	for i, para := range splitParagraphs(s) {
		if i > 0 {
			md.WriteString("\n\n")
		}
		md.WriteString(escapeMarkdown(para))
	}
	doc.Markdown = md.String() + "\n"
	doc.Text = plainText(doc.Markdown)
	return doc, nil
}

// Markdown extracts a Markdown clip (Obsidian Web Clipper and similar
// tools). Frontmatter is removed from the body; its title, source (or url),
// author (a string or a list, wiki-link brackets stripped) and published (or
// date) fields fill the Doc. Without a title field the first level-one
// heading is the title, else the file name.
func Markdown(data []byte, name string) (*Doc, error) {
	s := decodeText(data, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	doc := &Doc{}
	body := s
	var meta map[string]any
	if rest, err := vault.DecodeFrontmatter([]byte(s), &meta); !errors.Is(err, vault.ErrNoFrontmatter) {
		body = string(rest)
		// A broken frontmatter is the clip's problem, not a reason to lose
		// the clip: its fields are just not used.
		if err == nil {
			doc.Title = oneLine(scalar(meta["title"]))
			doc.URL = oneLine(firstOf(scalar(meta["source"]), scalar(meta["url"])))
			doc.Author = oneLine(authors(meta["author"], meta["authors"]))
			doc.Date = normDate(firstOf(scalar(meta["published"]), scalar(meta["date"])))
			doc.Lang = oneLine(scalar(meta["lang"]))
			doc.Site = oneLine(scalar(meta["site"]))
		}
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return nil, &Error{Name: name, Kind: ErrEmpty}
	}
	if doc.Title == "" {
		for _, line := range strings.Split(body, "\n") {
			if t, ok := strings.CutPrefix(line, "# "); ok && strings.TrimSpace(t) != "" {
				doc.Title = oneLine(t)
				break
			}
		}
	}
	if doc.Title == "" {
		doc.Title = titleFromName(name)
	}
	doc.Markdown = body + "\n"
	doc.Text = plainText(doc.Markdown)
	if strings.TrimSpace(doc.Text) == "" {
		return nil, &Error{Name: name, Kind: ErrEmpty}
	}
	return doc, nil
}

// decodeText returns a text file as UTF-8 in NFC with no control
// character but tab and newline. The charset comes from a byte order mark
// (UTF-8, UTF-16), then the charset contentType declares; without either,
// bytes that are valid UTF-8 are UTF-8, text with a NUL in every other
// byte is UTF-16 (Windows' "Unicode" without a mark), else Windows-1252.
// A UTF-16 file read as bytes put a NUL between every letter of the notes
// written from it, which the indexer then skipped as binary (issue 13).
func decodeText(data []byte, contentType string) string {
	var s string
	switch enc := textEncoding(data, contentType); {
	case enc != nil:
		out, err := enc.NewDecoder().Bytes(data)
		if err != nil {
			out = data
		}
		s = string(out)
	case utf8.Valid(data):
		s = string(data)
	default:
		out, _ := charmap.Windows1252.NewDecoder().Bytes(data)
		s = string(out)
	}
	return vault.CleanText(norm.NFC.String(strings.TrimPrefix(s, "\ufeff")))
}

// textEncoding is the encoding a byte order mark, a declared charset or
// UTF-16's NULs name, or nil.
func textEncoding(data []byte, contentType string) encoding.Encoding {
	switch {
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		return nil // UTF-8: the mark is dropped after decoding
	case bytes.HasPrefix(data, []byte("\xff\xfe")):
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	case bytes.HasPrefix(data, []byte("\xfe\xff")):
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil && params["charset"] != "" {
		if enc, _ := charset.Lookup(params["charset"]); enc != nil {
			return enc
		}
	}
	if even, odd := nulShare(data); odd > 0.3 && even < 0.05 {
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	} else if even > 0.3 && odd < 0.05 {
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	}
	return nil
}

// nulShare is the share of NULs at even and at odd offsets in the first
// 4 KB: Latin text in UTF-16 has one in every other byte.
func nulShare(data []byte) (even, odd float64) {
	data = data[:min(len(data), 4096)]
	if len(data) < 4 {
		return 0, 0
	}
	var e, o int
	for i, c := range data {
		if c == 0 {
			if i%2 == 0 {
				e++
			} else {
				o++
			}
		}
	}
	half := float64(len(data)) / 2
	return float64(e) / half, float64(o) / half
}

func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case time.Time:
		return v.Format(time.DateOnly)
	case nil:
		return ""
	case []any:
		if len(v) > 0 {
			return scalar(v[0])
		}
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// authors joins an author field that may be a string or a list, and strips
// the [[ ]] that clippers put around names to make them links.
func authors(vs ...any) string {
	var names []string
	add := func(s string) {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "[["), "]]"))
		if s != "" {
			names = append(names, s)
		}
	}
	for _, v := range vs {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				add(scalar(x))
			}
		case nil:
		default:
			add(scalar(v))
		}
		if len(names) > 0 {
			break
		}
	}
	return strings.Join(names, ", ")
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// normDate reduces a date in any common spelling to YYYY-MM-DD, or returns
// "" when it is not one.
func normDate(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", time.DateOnly, time.RFC1123Z, time.RFC1123, "2006/01/02", "January 2, 2006", "2 January 2006", "Jan 2, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.DateOnly)
		}
	}
	if len(s) >= 10 {
		if t, err := time.Parse(time.DateOnly, s[:10]); err == nil {
			return t.Format(time.DateOnly)
		}
	}
	return ""
}

func splitParagraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.Trim(p, "\n"); strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

// escapeMarkdown makes text from a PDF or a text file safe to embed as a
// Markdown paragraph: a line that would start a heading, quote, list, table
// or code fence is escaped, and so is inline syntax (see escapeInline).
func escapeMarkdown(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = escapeBlockStart(escapeInline(strings.TrimLeft(line, " \t")))
	}
	return strings.Join(lines, "\n")
}

// escapeInline escapes what would turn text into markup anywhere in a line:
// HTML tags, code spans, backslashes, and Obsidian's [[links]], ![[embeds]],
// %%comments%% and #tags, so a source cannot add links, tags or hidden text
// to the vault.
func escapeInline(line string) string {
	return escapeTags(escapeSyntax(line))
}

func escapeSyntax(line string) string {
	var b strings.Builder
	for j := 0; j < len(line); j++ {
		c := line[j]
		switch {
		case c == '<' && j+1 < len(line) && (isASCIILetter(line[j+1]) || strings.IndexByte("/!?", line[j+1]) >= 0):
			b.WriteString(`\<`)
		case c == '[' && j+1 < len(line) && line[j+1] == '[':
			b.WriteString(`\[`)
		case c == '%' && j+1 < len(line) && line[j+1] == '%':
			b.WriteString(`\%`)
		case c == '`' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// escapeBlockStart escapes a line that would open a Markdown block other
// than a paragraph: "# x" becomes "\# x", "1. x" becomes "1\. x".
func escapeBlockStart(line string) string {
	if line == "" {
		return line
	}
	switch line[0] {
	case '#', '>', '|', '=', '~':
		return `\` + line
	case '-', '+', '*':
		if len(line) == 1 || line[1] == ' ' || line[1] == line[0] {
			return `\` + line
		}
		return line
	}
	i := 0
	for i < len(line) && i < 10 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') && (i+1 == len(line) || line[i+1] == ' ') {
		return line[:i] + `\` + line[i:]
	}
	return line
}

// hashtag matches what Obsidian takes for a tag: # after a space or at the
// start, followed by something other than a space, a digit or another #.
var hashtag = regexp.MustCompile(`(^|[\s(])#([^\s#\d\\])`)

func escapeTags(s string) string { return hashtag.ReplaceAllString(s, `$1\#$2`) }

// escapeObsidian escapes, in Markdown made from HTML, the Obsidian syntax
// that the HTML converter leaves alone (%%comments%%, #tags), outside code
// blocks and code spans.
func escapeObsidian(md string) string {
	return markdown.MapLines(md, func(l string) string {
		// Segments between backticks alternate between text and code.
		parts := strings.Split(l, "`")
		for j := 0; j < len(parts); j += 2 {
			parts[j] = escapeTags(strings.ReplaceAll(parts[j], "%%", `\%\%`))
		}
		return strings.Join(parts, "`")
	})
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

var mdParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()

// plainText returns the text a reader sees in Markdown: blocks separated by
// blank lines, table cells by tabs, no markup, no images, no raw HTML (so no
// page markers).
func plainText(md string) string {
	src := []byte(md)
	p := &plain{src: src}
	p.block(mdParser.Parse(text.NewReader(src)))
	return p.out.String()
}

type plain struct {
	src []byte
	out strings.Builder
	cur strings.Builder
}

func (p *plain) flush() {
	s := strings.TrimSpace(p.cur.String())
	p.cur.Reset()
	if s == "" {
		return
	}
	if p.out.Len() > 0 {
		p.out.WriteString("\n\n")
	}
	p.out.WriteString(s)
}

func (p *plain) block(n ast.Node) {
	switch n.Kind() {
	case ast.KindHTMLBlock, ast.KindThematicBreak:
		return
	case ast.KindFencedCodeBlock, ast.KindCodeBlock:
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			p.cur.Write(seg.Value(p.src))
		}
		p.flush()
		return
	case ast.KindParagraph, ast.KindHeading, ast.KindTextBlock:
		p.inline(n)
		p.flush()
		return
	case east.KindTable:
		for row := n.FirstChild(); row != nil; row = row.NextSibling() {
			for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
				if cell != row.FirstChild() {
					p.cur.WriteByte('\t')
				}
				p.inline(cell)
			}
			p.cur.WriteByte('\n')
		}
		p.flush()
		return
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		p.block(c)
	}
}

func (p *plain) inline(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(p.src)
			if c.IsRaw() {
				p.cur.Write(v)
			} else {
				p.cur.Write(util.UnescapePunctuations(util.ResolveNumericReferences(util.ResolveEntityNames(v))))
			}
			if c.SoftLineBreak() || c.HardLineBreak() {
				p.cur.WriteByte('\n')
			}
		case *ast.String:
			p.cur.Write(c.Value)
		case *ast.Image, *ast.RawHTML:
		case *ast.AutoLink:
			p.cur.Write(c.URL(p.src))
		default:
			p.inline(c)
		}
	}
}
