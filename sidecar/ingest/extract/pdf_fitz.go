//go:build cgo

package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gen2brain/go-fitz"
)

// PDFSupported reports whether this build reads PDFs (it needs cgo).
const PDFSupported = true

// readPDF opens the PDF in MuPDF and returns its metadata and the
// structured-text HTML of every page. MuPDF is C: go-fitz catches its
// exceptions for opening a document and loading a page, and the recover
// here turns anything that still surfaces as a Go panic into ErrBroken.
//
// Without cgo this file is left out (see pdf_nocgo.go): go-fitz's pure-Go
// fallback loads a shared libmupdf at start and panics when there is none,
// which would stop the whole sidecar, not just PDF ingest.
func readPDF(ctx context.Context, data []byte, name string, maxPages int) (raw *rawPDF, err error) {
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, &Error{Name: name, Kind: ErrBroken, Detail: fmt.Sprintf("MuPDF crashed: %v", r)}
		}
	}()
	doc, err := fitz.NewFromMemory(data)
	if err != nil {
		if doc != nil {
			doc.Close()
		}
		if errors.Is(err, fitz.ErrNeedsPassword) {
			return nil, &Error{Name: name, Kind: ErrEncrypted, Detail: "the PDF needs a password to open; remove it and add the file again"}
		}
		return nil, &Error{Name: name, Kind: ErrBroken, Detail: "MuPDF cannot open it", Err: err}
	}
	defer doc.Close()
	n := doc.NumPage()
	if n <= 0 {
		return nil, &Error{Name: name, Kind: ErrBroken, Detail: "no pages"}
	}
	raw = &rawPDF{meta: map[string]string{}}
	for k, v := range doc.Metadata() {
		// go-fitz returns fixed-size buffers with their trailing NULs.
		raw.meta[k] = strings.TrimSpace(strings.TrimRight(v, "\x00"))
	}
	raw.total = n
	read := 0
	for i := range min(n, maxPages) {
		// A page takes MuPDF a while; a cancelled ingest (or an engine
		// whose parent is gone) must not wait for a hundred thousand.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if read >= maxPDFHTML {
			break
		}
		h, err := doc.HTML(i, false)
		if err != nil {
			return nil, &Error{Name: name, Kind: ErrBroken, Detail: fmt.Sprintf("page %d cannot be read", i+1), Err: err}
		}
		read += len(h)
		raw.pages = append(raw.pages, h)
	}
	return raw, nil
}
