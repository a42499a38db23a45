//go:build !cgo

package extract

import "context"

// PDFSupported reports whether this build reads PDFs (it needs cgo).
const PDFSupported = false

// readPDF without cgo: MuPDF is linked through cgo, so a build without it
// cannot read PDFs but still extracts web pages and text.
func readPDF(_ context.Context, data []byte, name string, _ int) (*rawPDF, error) {
	return nil, &Error{Name: name, Kind: ErrUnsupported, Detail: "this build of quire has no PDF support (built without cgo)"}
}
