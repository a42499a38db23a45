//go:build !cgo

package buildinfo

// cgoEnabled is false without cgo: go-fitz cannot link MuPDF, PDFs are refused.
const cgoEnabled = false
