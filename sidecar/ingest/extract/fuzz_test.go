package extract

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// FuzzHTML: any bytes as a page give a document or an *Error, never a
// panic, and the Markdown never carries a script or a javascript: link.
func FuzzHTML(f *testing.F) {
	for _, name := range []string{"blog.html", "table-code.html", "latin1.html"} {
		f.Add(readFixture(f, name), "text/html")
	}
	f.Add([]byte("<a href=javascript:x>y</a>"), "")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		doc, err := HTML(body, "https://fuzz.example/a/b", contentType)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		if strings.Contains(doc.Markdown, "](javascript:") {
			t.Errorf("javascript link kept:\n%s", doc.Markdown)
		}
	})
}

// FuzzPDF: damaged PDFs reach MuPDF and come back as a document or an
// *Error. (Run with -fuzz to search; the seeds run in every go test.)
func FuzzPDF(f *testing.F) {
	good := makePDF(f, false)
	f.Add(good)
	f.Add(makePDF(f, true))
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := PDF(context.Background(), data, "fuzz.pdf")
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		if doc.Pages < 1 || doc.Title == "" {
			t.Errorf("document without pages or title: %+v", doc)
		}
	})
}

// Extractions run in parallel (the ingest queue may work on several
// sources): each PDF has its own MuPDF context.
func TestPDFConcurrent(t *testing.T) {
	data := makePDF(t, false)
	want, err := PDF(context.Background(), data, "a.pdf")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				got, err := PDF(context.Background(), data, "a.pdf")
				if err != nil {
					t.Error(err)
					return
				}
				if got.Markdown != want.Markdown {
					t.Error("concurrent extraction gave different Markdown")
					return
				}
			}
		}()
	}
	wg.Wait()
}
