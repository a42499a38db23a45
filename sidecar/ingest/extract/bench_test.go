package extract

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"
)

var sections = []string{"Methods", "Site and soils", "Irrigation", "Sensors", "Results", "Yield", "Discussion"}

// benchPDF is a text-heavy report: a title, then per page a heading and
// about 500 words of body text.
func benchPDF(b *testing.B, pages int) []byte {
	needPDF(b)
	p := fpdf.New("P", "pt", "A4", "")
	p.SetMargins(50, 50, 50)
	para := strings.Repeat("Measured soil moisture rose after each irrigation and fell over the following days as roots drew water. ", 8)
	for i := range pages {
		p.AddPage()
		if i == 0 {
			p.SetFont("Helvetica", "B", 22)
			p.CellFormat(0, 28, "Irrigation Trial Report", "", 1, "", false, 0, "")
		}
		p.SetFont("Helvetica", "B", 15)
		p.CellFormat(0, 22, sections[i%len(sections)], "", 1, "", false, 0, "")
		p.SetFont("Helvetica", "", 10)
		for range 4 {
			p.MultiCell(0, 13, para, "", "", false)
			p.Ln(6)
		}
	}
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		b.Fatal(err)
	}
	return out.Bytes()
}

var heading2 = regexp.MustCompile(`(?m)^## `)

// BenchmarkPDF reports pages per second for a 20-page text PDF.
func BenchmarkPDF(b *testing.B) {
	const pages = 20
	data := benchPDF(b, pages)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		doc, err := PDF(context.Background(), data, "report.pdf")
		if err != nil || doc.Pages != pages {
			b.Fatal(err)
		}
		if n := len(heading2.FindAllString(doc.Markdown, -1)); n != pages {
			b.Fatalf("%d section headings, want %d", n, pages)
		}
	}
	b.ReportMetric(float64(b.N*pages)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkHTML extracts the blog fixture (a 5 KB page) and a long
// generated article (about 300 KB, 400 paragraphs, lists and a table).
func BenchmarkHTML(b *testing.B) {
	var long strings.Builder
	long.WriteString(`<html><head><title>Long read</title><meta property="og:site_name" content="Bench"></head><body><nav><a href="/">Home</a></nav><article><h1>Long read</h1>`)
	for i := range 400 {
		if i%20 == 0 {
			fmt.Fprintf(&long, "<h2>Part %d</h2><ul><li>first point</li><li>second point</li></ul>", i/20)
		}
		if i%100 == 50 {
			long.WriteString("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>")
		}
		fmt.Fprintf(&long, `<p>Paragraph %d talks about <a href="/p/%d">something</a> at length, with enough words to look like an article and not like navigation, so readability keeps it in the main text. %s</p>`, i, i, strings.Repeat("More words follow here. ", 20))
	}
	long.WriteString(`</article><footer>footer</footer></body></html>`)
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"blog", readFixture(b, "blog.html")},
		{"long", []byte(long.String())},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				if _, err := HTML(tc.body, "https://bench.example/post", "text/html"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
