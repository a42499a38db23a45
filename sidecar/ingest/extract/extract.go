// Package extract turns a fetched or dropped source — a web page, a PDF, a
// plain text file or a Markdown clip — into clean Markdown plus the
// metadata a source note needs (title, author, date, site, images).
//
// Web pages go through a readability extractor (go-readability), which keeps
// the article and drops navigation, footers, sidebars, ads and scripts; the
// article is converted to Markdown with headings, lists, quotes, code and
// tables kept. PDFs go through MuPDF (go-fitz): text per page, lines set in
// a larger font become headings, each page starts with a marker (see
// PageMarker), and a few figures are returned for the caller to save under
// Quire/attachments/<source-slug>/. Text files pass through; a Markdown
// clip keeps its frontmatter title, source and author.
//
// Every Doc carries, beside its Markdown, the plain text of that Markdown
// (Doc.Text): what the trust checks search for quotes and terms, and what
// TextHash hashes for the queue's duplicate check.
//
// Bad input is an *Error naming the source, with a kind callers branch on:
// ErrEncrypted (a PDF with a password), ErrBroken (a truncated or corrupt
// file), ErrEmpty (nothing readable), ErrUnsupported. A Go panic on hostile
// input is recovered and reported as ErrBroken; a fault inside MuPDF's C
// code could not be, which is why damaged PDFs are fuzzed (FuzzPDF) and a
// file is checked for a PDF header and end marker before MuPDF sees it.
package extract

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/quire-app/quire/sidecar/vault"
)

// Doc is one extracted source.
type Doc struct {
	Title  string // the document's title; never empty (falls back to the file name)
	Author string // byline or PDF author, if any
	Date   string // publication date as YYYY-MM-DD, if known
	Site   string // site name for a web page (og:site_name, else the host)
	URL    string // canonical source URL for a web page or a clip's source field
	Lang   string // language tag declared by the source, if any (e.g. "en", "cs-CZ")

	// Markdown is the body: no frontmatter, no title line of its own.
	Markdown string
	// Text is the plain text of Markdown: paragraphs separated by blank
	// lines, no markup, no image or page markers.
	Text string

	Images []Image // image links of a web page, figures of a PDF
	Pages  int     // page count of a PDF, 0 otherwise
	// PagesRead is how many of a PDF's first pages Markdown holds: fewer
	// than Pages past MaxPDFPages.
	PagesRead int

	// Removed counts the images and links Any left out of Markdown: on a
	// private or local address, or past MaxImages.
	Removed Removed
}

// Image is an image the source shows. A web page's image has a URL; a PDF
// figure has Data, which the caller writes to Path (vault-relative, under
// AttachmentsFolder) — the Markdown already links to that path.
type Image struct {
	URL  string // absolute http(s) URL, for web images
	Alt  string // alt text or a caption such as "Figure 1 (page 3)"
	Name string // file name, for PDF figures
	Path string // vault-relative path the Markdown links to, for PDF figures
	Data []byte // encoded image (PNG or JPEG), for PDF figures
	Page int    // 1-based page of a PDF figure
}

// MoveImage records that the figure Images[i] was saved at path (a
// vault-relative path, e.g. the one raw.Save returned when the planned
// name was taken) and points the Markdown's link at it.
func (d *Doc) MoveImage(i int, path string) {
	old := d.Images[i].Path
	if old == "" || old == path {
		return
	}
	d.Markdown = strings.ReplaceAll(d.Markdown, "]("+old+")", "]("+path+")")
	d.Images[i].Path = path
}

// AttachmentsFolder is where PDF figures go, one sub-folder per source.
const AttachmentsFolder = "Quire/attachments"

// The kinds of failure, matched with errors.Is against any error this
// package returns.
var (
	ErrEncrypted   = errors.New("password protected")
	ErrBroken      = errors.New("broken file")
	ErrEmpty       = errors.New("no readable text")
	ErrUnsupported = errors.New("unsupported type")
)

// Error is the error extraction returns. It reads like a path:
//
//	extract report.pdf: password protected: the PDF needs a password to open; remove it and add the file again
type Error struct {
	Name   string // the file name or URL of the source
	Kind   error  // one of the Err* kinds
	Detail string // what the user reads after the kind
	Err    error  // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("extract ")
	b.WriteString(e.Name)
	b.WriteString(": ")
	b.WriteString(e.Kind.Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is match both the kind and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Any extracts a source whose kind is given by its content type (from the
// HTTP response, may be empty), else by the extension of name, else by
// sniffing the bytes. pageURL is the final URL of a fetched page (used to
// make links absolute), empty for a file. ctx ends a long extraction (a
// PDF is read page by page).
func Any(ctx context.Context, data []byte, name, contentType, pageURL string) (*Doc, error) {
	label := name
	if label == "" {
		label = pageURL
	}
	var doc *Doc
	var err error
	switch kind(data, name, contentType, pageURL) {
	case kindHTML:
		doc, err = HTML(data, pageURL, contentType)
	case kindPDF:
		doc, err = PDF(ctx, data, label)
	case kindMarkdown:
		doc, err = Markdown(data, label)
	case kindText:
		doc, err = Text(data, label, contentType)
	default:
		mt, _, _ := mime.ParseMediaType(contentType)
		if mt == "" {
			mt = http.DetectContentType(data)
		}
		return nil, &Error{Name: label, Kind: ErrUnsupported, Detail: mt}
	}
	if err != nil {
		return nil, err
	}
	doc.clean()
	doc.dropLocal()
	return doc, nil
}

// clean drops control characters from every field, whatever the source
// held (a PDF's text, a page's title): they end up in notes, whose bytes
// the indexer checks, and in titles, which become file names.
func (d *Doc) clean() {
	for _, f := range []*string{&d.Title, &d.Author, &d.Date, &d.Site, &d.URL, &d.Lang} {
		*f = oneLine(vault.CleanText(*f))
	}
	d.Markdown = vault.CleanText(d.Markdown)
	d.Text = vault.CleanText(d.Text)
	for i := range d.Images {
		d.Images[i].Alt = oneLine(vault.CleanText(d.Images[i].Alt))
	}
}

type docKind int

const (
	kindUnknown docKind = iota
	kindHTML
	kindPDF
	kindMarkdown
	kindText
)

func kind(data []byte, name, contentType, pageURL string) docKind {
	mt, _, _ := mime.ParseMediaType(contentType)
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(name, `\`, "/")))
	if ext == "" && pageURL != "" {
		ext = strings.ToLower(path.Ext(strings.SplitN(strings.SplitN(pageURL, "?", 2)[0], "#", 2)[0]))
	}
	switch mt {
	case "text/html", "application/xhtml+xml":
		return kindHTML
	case "application/pdf", "application/x-pdf":
		return kindPDF
	case "text/markdown", "text/x-markdown":
		return kindMarkdown
	case "text/plain":
		// Servers and file pickers call Markdown text/plain.
		if ext == ".md" || ext == ".markdown" {
			return kindMarkdown
		}
		return kindText
	}
	if mt != "" && mt != "application/octet-stream" && mt != "binary/octet-stream" {
		return kindUnknown
	}
	switch ext {
	case ".html", ".htm", ".xhtml":
		return kindHTML
	case ".pdf":
		return kindPDF
	case ".md", ".markdown":
		return kindMarkdown
	case ".txt", ".text":
		return kindText
	}
	if bytes.HasPrefix(bytes.TrimLeft(data[:min(len(data), 1024)], "\x00\t\n\r "), []byte("%PDF-")) {
		return kindPDF
	}
	switch sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(data)); sniffed {
	case "text/html":
		return kindHTML
	case "text/plain":
		return kindText
	}
	return kindUnknown
}

// TextHash returns a hash of the document's text that ignores what does
// not change the content: case, accents' encoding (NFC vs NFD), punctuation,
// whitespace and Markdown syntax. Two fetches of one article through
// different URLs (or a PDF saved twice) hash the same; the queue refuses the
// second. The result is 64 hex digits.
func TextHash(doc *Doc) string {
	text := norm.NFKC.String(doc.Text)
	var b strings.Builder
	space := false
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// Slug returns the folder name for a source's attachments: the file name
// without its extension (or the URL's last path segment, or its host),
// lowercased, with runs of anything but letters and digits turned into one
// dash, at most 60 bytes.
func Slug(name string) string {
	s := strings.ReplaceAll(name, `\`, "/")
	hostOnly := false
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		s = strings.SplitN(strings.SplitN(s, "?", 2)[0], "#", 2)[0]
		s = strings.TrimRight(s, "/")
		hostOnly = !strings.Contains(s, "/")
	}
	s = path.Base(s)
	if !hostOnly {
		s = strings.TrimSuffix(s, path.Ext(s))
	}
	var b strings.Builder
	dash := false
	for _, r := range norm.NFC.String(strings.ToLower(s)) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			dash = true
			continue
		}
		sep := dash && b.Len() > 0
		if n := b.Len() + len(string(r)); n > 60 || sep && n+1 > 60 {
			break
		}
		if sep {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "source"
	}
	return b.String()
}

// titleFromName is the last-resort title: the file name without its
// extension, or the URL's host and path.
func titleFromName(name string) string {
	s := strings.ReplaceAll(name, `\`, "/")
	if i := strings.Index(s, "://"); i >= 0 {
		return strings.TrimRight(s[i+3:], "/")
	}
	s = path.Base(s)
	if t := strings.TrimSuffix(s, path.Ext(s)); t != "" {
		s = t
	}
	if s == "" || s == "." || s == "/" {
		return "Untitled"
	}
	return s
}

// oneLine collapses whitespace, so metadata never carries a newline into
// frontmatter.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
