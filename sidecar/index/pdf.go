package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/bm25"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/vault"
)

// The caps on one PDF in the vault. A note is written by hand and a
// vault holds few long ones; a PDF may be a 500-page book, whose
// thousands of passages would swamp the keyword statistics (every word's
// rarity is counted over all passages) and the related pages of every
// note. So a PDF gives at most pdfPages pages and pdfPassages passages,
// and a warning says what was left out; reading it stops after pdfTime
// (MuPDF is checked between pages).
const (
	pdfPages    = 100
	pdfPassages = 300
	pdfTime     = 30 * time.Second
)

// preparePDF reads the text of a PDF in the vault into passages, each
// carrying the page it starts on. A PDF that cannot be read (locked,
// broken, a scan with no text layer, too slow) is kept in the catalog
// with no passages and a warning naming why, so the runs that follow do
// not read it again until it changes.
func (ix *Index) preparePDF(ctx context.Context, f vault.File, prev *Entry, d *dating) result {
	r := result{file: f, known: prev != nil}
	data, err := os.ReadFile(filepath.Join(ix.Vault, filepath.FromSlash(f.Path)))
	if err != nil {
		r.skip = &vault.Skip{Path: f.Path, Reason: "unreadable: " + err.Error()}
		return r
	}
	title := strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path))
	e := &Entry{Size: f.Size, ModTime: f.ModTime.UnixNano(), Hash: vault.HashBytes(data), Title: title}
	d.stampFile(e, f)
	r.entry = e
	if prev != nil && prev.Hash == e.Hash {
		e.Chunks, e.Lang, e.Warning, r.touch = prev.Chunks, prev.Lang, prev.Warning, true
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, pdfTime)
	defer cancel()
	doc, err := extract.PDFPages(ctx, data, f.Path, pdfPages)
	if err != nil {
		e.Warning = "not indexed: " + pdfProblem(err)
		r.docs = []bm25.Doc{}
		return r
	}
	// The figures' bytes are the ingest's: the index wants the text only.
	doc.Images = nil
	l := lang.Detect(markdown.Prose(doc.Text[:min(len(doc.Text), detectBytes)]))
	e.Lang = string(l)
	raw := []byte(doc.Markdown)
	chunks := ix.pageChunks(raw)
	var left []string
	if doc.PagesRead < doc.Pages {
		left = append(left, fmt.Sprintf("only the first %d of its %d pages are indexed", doc.PagesRead, doc.Pages))
	}
	if len(chunks) > pdfPassages {
		left = append(left, fmt.Sprintf("only its first %d passages are indexed (to page %d)", pdfPassages, chunks[pdfPassages-1].page))
		chunks = chunks[:pdfPassages]
	}
	e.Warning = strings.Join(left, "; ")
	r.docs = make([]bm25.Doc, 0, len(chunks))
	for _, c := range chunks {
		text := stripPageMarkers(string(raw[c.Start:c.End]))
		if strings.TrimSpace(text) == "" {
			continue
		}
		r.docs = append(r.docs, bm25.Doc{
			ID:          f.Path + "#" + strconv.Itoa(len(r.docs)),
			Path:        f.Path,
			Lang:        string(l),
			Title:       title,
			Headings:    append([]string{}, c.Headings...),
			HeadingText: strings.Join(append(append([]string{}, c.Headings...), c.Contains...), "\n"),
			Body:        markdown.Plain(text),
			Text:        text,
			Start:       c.Start,
			End:         c.End,
			Page:        c.page,
		})
	}
	e.Chunks = len(r.docs)
	return r
}

// pdfProblem is why a PDF could not be read, in the words a person reads
// in the status: the extractor's error names the file already.
func pdfProblem(err error) string {
	switch {
	case errors.Is(err, extract.ErrEncrypted):
		return "the PDF needs a password"
	case errors.Is(err, extract.ErrEmpty):
		return "the PDF has no text layer (a scan?)"
	case errors.Is(err, extract.ErrUnsupported):
		return "this build of quire reads no PDFs"
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("reading it took more than %s", pdfTime)
	}
	var xe *extract.Error
	if errors.As(err, &xe) {
		return "the PDF is broken: " + xe.Detail
	}
	return err.Error()
}

// pageChunk is a passage of a PDF's Markdown and its page.
type pageChunk struct {
	markdown.Chunk
	page int
}

// pageChunks cuts a PDF's Markdown page by page, so that a passage never
// runs across pages and the page it cites is the page it is on. A
// passage with no heading of its own on its page is under the heading in
// force at the end of the page before.
func (ix *Index) pageChunks(raw []byte) []pageChunk {
	var out []pageChunk
	var heads []string
	off, page, from := 0, 0, 0
	cut := func(end int) {
		if page == 0 {
			return
		}
		for _, c := range ix.chunker().Split(raw[:end], from) {
			if len(c.Headings) == 0 {
				c.Headings = heads
			}
			out = append(out, pageChunk{c, page})
		}
		if len(out) > 0 {
			last := out[len(out)-1].Chunk
			heads = last.Headings
			if len(last.Contains) > 0 {
				heads = []string{last.Contains[len(last.Contains)-1]}
			}
		}
	}
	for _, ln := range strings.SplitAfter(string(raw), "\n") {
		if n, ok := extract.PageOf(ln); ok {
			cut(off)
			page, from = n, off+len(ln)
		}
		off += len(ln)
	}
	cut(len(raw))
	return out
}

// stripPageMarkers drops the page markers from a passage's text: they
// are the index's, not the document's, and would show in a hit.
func stripPageMarkers(text string) string {
	lines := strings.Split(text, "\n")
	out := lines[:0]
	for _, ln := range lines {
		if _, ok := extract.PageOf(ln); !ok {
			out = append(out, ln)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
