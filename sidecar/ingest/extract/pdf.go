package extract

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg" // figures come out of MuPDF as PNG or JPEG
	_ "image/png"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/norm"
)

// MaxFigures is how many figures a PDF yields at most. A note wants the
// few that explain the source, not every logo and chart of a long report.
const MaxFigures = 4

// minFigureSide skips icons, bullets and rules drawn as images.
const minFigureSide = 64

// maxFigureBytes skips images too large for a note's attachments folder.
const maxFigureBytes = 8 << 20

// MaxPDFPages is how many pages of a PDF are read at most: a book has a
// few hundred; past that a source is a dump no note can summarise, and
// reading a hundred thousand pages took MuPDF a minute and 382 MB.
const MaxPDFPages = 2000

// maxPDFHTML bounds the bytes of MuPDF's page HTML kept (text and
// figures as data: URIs), whatever the page count: a few pages of huge
// text or images stop the reading too.
const maxPDFHTML = 64 << 20

// PageMarker is the line that starts page n (1-based) in a PDF's Markdown.
// It is an HTML comment, so Obsidian does not show it and Doc.Text does not
// contain it, while the reading step can still tell which page a passage
// comes from.
func PageMarker(n int) string { return "<!-- page " + strconv.Itoa(n) + " -->" }

var pageMarker = regexp.MustCompile(`^<!-- page (\d+) -->$`)

// PageOf reports the page number if line is a page marker.
func PageOf(line string) (int, bool) {
	m := pageMarker.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// PDF extracts a PDF: its text page by page, with lines in a larger font
// than the body text as headings, each page opened by PageMarker, and up to
// MaxFigures figures in Doc.Images (their Path is under
// AttachmentsFolder/Slug(name)/; the caller writes Data there). name is the
// file name or URL, used in errors, for the slug and as the last-resort
// title.
//
// A PDF that needs a password is ErrEncrypted; one that is not a PDF, is
// cut short (no %%EOF at its end: an interrupted download) or that MuPDF
// cannot open or lay out is ErrBroken; one with no text layer (a scan) is
// ErrEmpty. Past MaxPDFPages pages, or maxPDFHTML bytes of MuPDF's page
// HTML, the rest is not read: Doc.PagesRead says how many were. ctx is
// checked between pages.
func PDF(ctx context.Context, data []byte, name string) (*Doc, error) {
	return PDFPages(ctx, data, name, MaxPDFPages)
}

// PDFPages is PDF reading at most maxPages pages (at most MaxPDFPages):
// the index reads the first pages of a PDF in the vault, and a book
// must not cost it what a source note's reading may.
func PDFPages(ctx context.Context, data []byte, name string, maxPages int) (*Doc, error) {
	if name == "" {
		name = "document.pdf"
	}
	if err := checkPDFBytes(data, name); err != nil {
		return nil, err
	}
	raw, err := readPDF(ctx, data, name, min(max(maxPages, 1), MaxPDFPages))
	if err != nil {
		return nil, err
	}
	return layoutPDF(raw, name)
}

// checkPDFBytes catches what MuPDF would silently repair: a file that is
// not a PDF at all, and a download cut short, whose missing pages MuPDF's
// repair would hide from the user.
func checkPDFBytes(data []byte, name string) error {
	head := data[:min(len(data), 1024)]
	if !bytes.Contains(head, []byte("%PDF-")) {
		return &Error{Name: name, Kind: ErrBroken, Detail: "not a PDF (no %PDF header)"}
	}
	tail := bytes.TrimRight(data, "\x00\t\n\r\f ")
	tail = tail[max(0, len(tail)-1024):]
	if !bytes.Contains(tail, []byte("%%EOF")) {
		return &Error{Name: name, Kind: ErrBroken, Detail: "the file is cut short (no %%EOF at its end); download it again"}
	}
	return nil
}

// rawPDF is what the MuPDF side hands over: metadata and, per page, the
// structured-text HTML MuPDF prints (one <p> per line with its position and
// font size, images as data: URIs).
type rawPDF struct {
	meta  map[string]string
	pages []string // the pages read, from the first
	total int      // the PDF's page count
}

// line is one line of text as laid out on a page.
type line struct {
	top, left, height, size float64
	bold                    bool
	text                    string
}

type pageContent struct {
	lines  []line
	images []pdfImage
}

type pdfImage struct {
	mime string
	data []byte
}

func layoutPDF(raw *rawPDF, name string) (*Doc, error) {
	pages := make([]pageContent, len(raw.pages))
	for i, h := range raw.pages {
		pages[i] = parsePage(h)
	}
	dropRunning(pages)
	body, levels := fontClasses(pages)

	doc := &Doc{Pages: max(raw.total, len(pages)), PagesRead: len(pages)}
	slug := Slug(name)
	var md strings.Builder
	var firstHeading string
	figures := 0
	for i, pg := range pages {
		md.WriteString(PageMarker(i + 1))
		md.WriteString("\n\n")
		bs := blocks(pg.lines, body, levels)
		for j, b := range bs {
			switch {
			case b.level > 0:
				if firstHeading == "" && b.level == 1 {
					firstHeading = b.text
				}
				md.WriteString(strings.Repeat("#", b.level) + " " + escapeInline(b.text) + "\n\n")
			case b.item:
				// Items of one list are written without blank lines
				// between them, so the list stays tight.
				md.WriteString("- " + escapeMarkdown(b.text) + "\n")
				if j+1 == len(bs) || !bs[j+1].item {
					md.WriteString("\n")
				}
			default:
				md.WriteString(escapeMarkdown(b.text) + "\n\n")
			}
		}
		for _, im := range pg.images {
			if figures >= MaxFigures {
				break
			}
			ext, ok := figureExt(im)
			if !ok {
				continue
			}
			figures++
			fname := fmt.Sprintf("page-%d-figure-%d%s", i+1, figures, ext)
			img := Image{
				Alt:  fmt.Sprintf("Figure %d (page %d)", figures, i+1),
				Name: fname,
				Path: path.Join(AttachmentsFolder, slug, fname),
				Data: im.data,
				Page: i + 1,
			}
			doc.Images = append(doc.Images, img)
			md.WriteString("![" + img.Alt + "](" + img.Path + ")\n\n")
		}
	}
	doc.Markdown = strings.TrimRight(md.String(), "\n") + "\n"
	doc.Text = plainText(doc.Markdown)
	if strings.TrimSpace(doc.Text) == "" {
		return nil, &Error{Name: name, Kind: ErrEmpty, Detail: "the PDF has no text layer (a scan?)"}
	}
	doc.Title = pdfTitle(raw.meta["title"])
	if doc.Title == "" {
		doc.Title = oneLine(firstHeading)
	}
	if doc.Title == "" {
		doc.Title = titleFromName(name)
	}
	doc.Author = oneLine(raw.meta["author"])
	doc.Date = pdfDate(raw.meta["creationDate"])
	return doc, nil
}

// pdfTitle drops the titles that tools put in by default and that say
// nothing about the document.
func pdfTitle(t string) string {
	t = oneLine(t)
	t = strings.TrimPrefix(t, "Microsoft Word - ")
	switch strings.ToLower(t) {
	case "", "untitled", "untitled document", "document", "title", "slide 1", "powerpoint presentation":
		return ""
	}
	if ext := strings.ToLower(path.Ext(t)); ext == ".doc" || ext == ".docx" || ext == ".pdf" || ext == ".tex" || ext == ".dvi" || ext == ".indd" {
		return ""
	}
	return t
}

// pdfDate reads a PDF date string (D:YYYYMMDDHHmmSS…) as YYYY-MM-DD.
func pdfDate(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "D:")
	if len(s) < 8 {
		return ""
	}
	d := s[:4] + "-" + s[4:6] + "-" + s[6:8]
	return normDate(d)
}

func figureExt(im pdfImage) (string, bool) {
	var ext string
	switch im.mime {
	case "image/png":
		ext = ".png"
	case "image/jpeg":
		ext = ".jpg"
	default:
		return "", false
	}
	if len(im.data) > maxFigureBytes {
		return "", false
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(im.data))
	if err != nil || cfg.Width < minFigureSide || cfg.Height < minFigureSide {
		return "", false
	}
	return ext, true
}

var (
	styleNum = regexp.MustCompile(`(top|left|line-height|font-size)\s*:\s*(-?[0-9.]+)pt`)
)

// parsePage reads MuPDF's HTML for one page.
func parsePage(s string) pageContent {
	var pc pageContent
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return pc
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.P:
				if l, ok := parseLine(n); ok {
					pc.lines = append(pc.lines, l)
				}
				return
			case atom.Img:
				if im, ok := dataURI(attr(n, "src")); ok {
					pc.images = append(pc.images, im)
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return pc
}

func parseLine(p *html.Node) (line, bool) {
	var l line
	for _, m := range styleNum.FindAllStringSubmatch(attr(p, "style"), -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		switch m[1] {
		case "top":
			l.top = v
		case "left":
			l.left = v
		case "line-height":
			l.height = v
		}
	}
	// The line's size and weight are those of most of its characters: a
	// bold word in a sentence does not make a heading.
	sizes := map[float64]int{}
	boldChars, chars := 0, 0
	var b strings.Builder
	var walk func(n *html.Node, bold bool, size float64)
	walk = func(n *html.Node, bold bool, size float64) {
		switch n.Type {
		case html.TextNode:
			k := utf8.RuneCountInString(strings.TrimSpace(n.Data))
			sizes[size] += k
			chars += k
			if bold {
				boldChars += k
			}
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			if n.DataAtom == atom.B || n.DataAtom == atom.Strong {
				bold = true
			}
			for _, m := range styleNum.FindAllStringSubmatch(attr(n, "style"), -1) {
				if m[1] == "font-size" {
					size, _ = strconv.ParseFloat(m[2], 64)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, bold, size)
		}
	}
	walk(p, false, l.height)
	l.text = strings.Join(strings.Fields(norm.NFC.String(b.String())), " ")
	if l.text == "" {
		return l, false
	}
	best := -1
	for s, k := range sizes {
		if k > best || k == best && s > l.size {
			l.size, best = s, k
		}
	}
	l.size = math.Round(l.size*2) / 2
	l.bold = chars > 0 && boldChars*10 >= chars*9
	return l, true
}

func dataURI(src string) (pdfImage, bool) {
	rest, ok := strings.CutPrefix(src, "data:")
	if !ok {
		return pdfImage{}, false
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return pdfImage{}, false
	}
	payload = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, payload)
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return pdfImage{}, false
	}
	return pdfImage{mime: strings.TrimSuffix(meta, ";base64"), data: data}, true
}

var (
	digitRun   = regexp.MustCompile(`[0-9]+`)
	pageNumber = regexp.MustCompile(`(?i)^(page|p\.|seite|página|strana)?\s*([0-9]{1,4}|[ivxlc]{1,6})(\s*(of|/|von|de|z)\s*[0-9]{1,4})?$`)
)

// dropRunning removes running heads and feet: a line at the top or bottom
// of a page that recurs, numbers aside, on at least half the pages (three
// at least), and a bare page number as a page's first or last line. Left
// in, they would split paragraphs across pages and, set in bold or a
// larger size, pass for headings.
func dropRunning(pages []pageContent) {
	key := func(s string) string { return digitRun.ReplaceAllString(strings.ToLower(s), "#") }
	count := map[string]int{}
	for _, pg := range pages {
		seen := map[string]bool{}
		for _, i := range edgeLines(pg.lines, 2) {
			if k := key(pg.lines[i].text); !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	threshold := max(3, (len(pages)+1)/2)
	for p := range pages {
		lines := pages[p].lines
		drop := map[int]bool{}
		for _, i := range edgeLines(lines, 2) {
			if count[key(lines[i].text)] >= threshold {
				drop[i] = true
			}
		}
		for _, i := range edgeLines(lines, 1) {
			if pageNumber.MatchString(lines[i].text) {
				drop[i] = true
			}
		}
		if len(drop) == 0 {
			continue
		}
		kept := lines[:0]
		for i, l := range lines {
			if !drop[i] {
				kept = append(kept, l)
			}
		}
		pages[p].lines = kept
	}
}

// edgeLines returns the indexes of the lines in the top and bottom margin
// zones of a page: at most n lines at either end that are set apart from
// the rest of the page by a gap of more than one and a half lines. Body
// text that merely starts at the top of a page is not set apart, so it is
// never taken for a running head.
func edgeLines(lines []line, n int) []int {
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmpFloat(lines[a].top, lines[b].top) })
	apart := func(a, b line) bool {
		return math.Abs(b.top-a.top) > 1.6*max(a.height, a.size, b.height, b.size)
	}
	var out []int
	// The zone at the top ends at the first wide gap within n lines.
	for k := 0; k < n && k+1 < len(idx); k++ {
		if apart(lines[idx[k]], lines[idx[k+1]]) {
			out = append(out, idx[:k+1]...)
			break
		}
	}
	for k := 0; k < n && len(idx)-2-k >= 0; k++ {
		j := len(idx) - 1 - k
		if apart(lines[idx[j-1]], lines[idx[j]]) {
			for _, i := range idx[j:] {
				if !slices.Contains(out, i) {
					out = append(out, i)
				}
			}
			break
		}
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fontClasses finds the body text size (the size most characters are set
// in) and maps each larger size that is used for short lines to a heading
// level: the largest is 1, the next 2, every smaller one 3.
func fontClasses(pages []pageContent) (body float64, levels map[float64]int) {
	chars := map[float64]int{}
	longest := map[float64]int{}
	for _, pg := range pages {
		for _, l := range pg.lines {
			n := utf8.RuneCountInString(l.text)
			chars[l.size] += n
			longest[l.size] = max(longest[l.size], n)
		}
	}
	best := -1
	for s, n := range chars {
		if n > best || n == best && s < body {
			body, best = s, n
		}
	}
	var sizes []float64
	total := 0
	for _, n := range chars {
		total += n
	}
	for s, n := range chars {
		// A heading size is clearly larger than the body, and is not used
		// for much of the text (a large-print document is not all headings).
		if s >= body*1.15 && s-body >= 1 && n*4 <= total {
			sizes = append(sizes, s)
		}
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	levels = map[float64]int{}
	for i, s := range sizes {
		levels[s] = min(i+1, 3)
	}
	return body, levels
}

type block struct {
	level int  // heading level, 0 for a paragraph
	item  bool // a bulleted list item
	text  string
}

var bullets = []string{"•", "◦", "▪", "‣", "●", "○", "■", "□", "–", "—", "·", "-", "*", "\uf0b7"}

func bulletText(s string) (string, bool) {
	for _, b := range bullets {
		if rest, ok := strings.CutPrefix(s, b); ok && (rest == "" || rest[0] == ' ') {
			if t := strings.TrimSpace(rest); t != "" {
				return t, true
			}
		}
	}
	return s, false
}

// blocks groups a page's lines into headings, list items and paragraphs.
// A new block starts where the font class changes, where the gap to the
// previous line is more than about one and a half lines, where the text
// jumps back up the page (a new column), and at every bullet.
func blocks(lines []line, body float64, levels map[float64]int) []block {
	var out []block
	var prev *line
	var cur *block
	for i := range lines {
		l := &lines[i]
		level := levels[l.size]
		if level == 0 && l.bold && l.size >= body-0.5 && utf8.RuneCountInString(l.text) <= 80 && standalone(lines, i, body) {
			level = min(len(levels)+1, 4)
		}
		text, item := bulletText(l.text)
		newBlock := cur == nil || item || level != cur.level
		if !newBlock && prev != nil {
			gap := l.top - prev.top
			lh := max(prev.height, l.height, prev.size, l.size)
			if gap < -1 || gap > lh*1.6 || math.Abs(l.size-prev.size) > 0.6 {
				newBlock = true
			}
		}
		if newBlock {
			out = append(out, block{level: level, item: item, text: text})
			cur = &out[len(out)-1]
		} else {
			cur.text = joinLine(cur.text, text)
		}
		prev = l
	}
	return out
}

// standalone reports whether line i sits apart from body text below it:
// a bold line directly followed (within normal leading) by more bold or
// larger text is part of something else, and a line ending like a sentence
// is not a heading.
func standalone(lines []line, i int, body float64) bool {
	t := lines[i].text
	if strings.HasSuffix(t, ".") || strings.HasSuffix(t, ",") || strings.HasSuffix(t, ";") {
		return false
	}
	if i > 0 {
		p := lines[i-1]
		if gap := lines[i].top - p.top; gap >= 0 && gap <= max(p.height, p.size)*1.6 && !p.bold && p.size <= body+0.5 {
			// Continues a paragraph of body text.
			return false
		}
	}
	return true
}

// joinLine appends a line to a paragraph, undoing the hyphenation of a
// word split at the line end ("exam-" + "ple"); a hyphen before a capital
// or a digit is kept ("Jean-" + "Paul").
func joinLine(para, next string) string {
	if strings.HasSuffix(para, "-") && len(para) >= 2 {
		before, _ := utf8.DecodeLastRuneInString(para[:len(para)-1])
		after, _ := utf8.DecodeRuneInString(next)
		if unicode.IsLower(before) && unicode.IsLower(after) {
			return para[:len(para)-1] + next
		}
		return para + next
	}
	return para + " " + next
}
