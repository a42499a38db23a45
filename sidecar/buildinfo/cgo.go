//go:build cgo

package buildinfo

// cgoEnabled is true in a cgo build: go-fitz then links MuPDF and PDFs can be read.
const cgoEnabled = true
