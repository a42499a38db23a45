package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

// makePDF writes a two-page article: a title in 24 pt, a section heading
// in 16 pt, body text in 11 pt that wraps and is hyphenated at a line end,
// a bulleted list, a figure and a tiny icon on page one, and more text on
// page two.
func makePDF(t testing.TB, protect bool) []byte {
	t.Helper()
	needPDF(t)
	p := fpdf.New("P", "pt", "A4", "")
	p.SetTitle("Soil Moisture and Crop Yield", true)
	p.SetAuthor("Ada Field", true)
	p.SetCreationDate(time2024())
	if protect {
		p.SetProtection(fpdf.CnProtectPrint, "secret", "owner")
	}
	p.SetMargins(50, 50, 50)
	p.AddPage()
	p.SetFont("Helvetica", "B", 24)
	p.CellFormat(0, 30, "Soil Moisture and Crop Yield", "", 1, "", false, 0, "")
	p.Ln(12)
	p.SetFont("Helvetica", "", 11)
	p.MultiCell(0, 14, "Field trials over three seasons show that yield rises with soil moisture up to a point and then falls, because waterlogged roots cannot take up oxygen. The effect is strongest in clay soils.", "", "", false)
	p.MultiCell(0, 14, "This line ends with a hyphen-", "", "", false)
	p.MultiCell(0, 14, "ated word that continues here.", "", "", false)
	p.Ln(10)
	p.SetFont("Helvetica", "B", 16)
	p.CellFormat(0, 20, "Methods", "", 1, "", false, 0, "")
	p.Ln(8)
	p.SetFont("Helvetica", "", 11)
	p.MultiCell(0, 14, "Sensors were buried at two depths in each plot.", "", "", false)
	p.Ln(8)
	p.MultiCell(0, 14, "- Readings every hour", "", "", false)
	p.MultiCell(0, 14, "- Calibrated each spring", "", "", false)
	p.Ln(8)
	p.MultiCell(0, 14, "# not a heading <script>alert(1)</script> and [[not a link]]", "", "", false)
	addImage(p, "figure", 160, 100, 50, 420)
	addImage(p, "icon", 16, 16, 400, 420)
	p.AddPage()
	p.SetFont("Helvetica", "B", 16)
	p.CellFormat(0, 20, "Results", "", 1, "", false, 0, "")
	p.Ln(8)
	p.SetFont("Helvetica", "", 11)
	p.MultiCell(0, 14, "Yield peaked at a volumetric water content of about thirty percent.", "", "", false)
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func addImage(p *fpdf.Fpdf, name string, w, h int, x, y float64) {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range w {
		for j := range h {
			img.Set(i, j, color.RGBA{uint8(i * 3), uint8(j * 2), 120, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	opt := fpdf.ImageOptions{ImageType: "PNG"}
	p.RegisterImageOptionsReader(name, opt, &b)
	p.ImageOptions(name, x, y, float64(w), float64(h), false, opt, 0, "")
}

func TestPDF(t *testing.T) {
	doc, err := PDF(context.Background(), makePDF(t, false), "Soil Report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ name, got, want string }{
		{"title", doc.Title, "Soil Moisture and Crop Yield"},
		{"author", doc.Author, "Ada Field"},
		{"date", doc.Date, "2024-05-17"},
	} {
		if f.got != f.want {
			t.Errorf("%s: got %q, want %q", f.name, f.got, f.want)
		}
	}
	if doc.Pages != 2 {
		t.Errorf("pages: got %d, want 2", doc.Pages)
	}
	// In order, each on its own line or block.
	want := []string{
		PageMarker(1),
		"# Soil Moisture and Crop Yield\n",
		"Field trials over three seasons show that yield rises",
		"a hyphenated word that continues here.",
		"## Methods\n",
		"- Readings every hour\n- Calibrated each spring\n",
		`\# not a heading \<script>alert(1)\</script> and \[[not a link]]`,
		"![Figure 1 (page 1)](Quire/attachments/soil-report/page-1-figure-1.png)",
		PageMarker(2),
		"## Results\n",
		"Yield peaked at a volumetric water content of about thirty percent.",
	}
	rest := doc.Markdown
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("markdown lacks %q after the previous part:\n%s", w, doc.Markdown)
		}
		rest = rest[i+len(w):]
	}
	for _, bad := range []string{"hyphen- ated", "Methods Sensors"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("markdown has %q:\n%s", bad, doc.Markdown)
		}
	}
	// The text is what a reader sees: no markers, no markup, escapes undone.
	for _, w := range []string{"Methods\n\nSensors were buried", "# not a heading <script>alert(1)</script> and [[not a link]]"} {
		if !strings.Contains(doc.Text, w) {
			t.Errorf("text lacks %q:\n%s", w, doc.Text)
		}
	}
	if strings.Contains(doc.Text, "page 1") || strings.Contains(doc.Text, "Figure 1") {
		t.Errorf("text has markers or figure links:\n%s", doc.Text)
	}
	// The figure is returned, the 16-pixel icon is not.
	if len(doc.Images) != 1 {
		t.Fatalf("images: got %d, want 1: %+v", len(doc.Images), doc.Images)
	}
	im := doc.Images[0]
	if im.Path != "Quire/attachments/soil-report/page-1-figure-1.png" || im.Page != 1 {
		t.Errorf("figure: got path %q page %d", im.Path, im.Page)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(im.Data))
	if err != nil || cfg.Width != 160 || cfg.Height != 100 {
		t.Errorf("figure data: %v, %dx%d, want a 160x100 PNG", err, cfg.Width, cfg.Height)
	}
}

func TestMoveImage(t *testing.T) {
	doc, err := PDF(context.Background(), makePDF(t, false), "Soil Report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	doc.MoveImage(0, "Quire/attachments/soil-report/page-1-figure-1-2.png")
	if want := "![Figure 1 (page 1)](Quire/attachments/soil-report/page-1-figure-1-2.png)"; !strings.Contains(doc.Markdown, want) {
		t.Errorf("markdown lacks %q:\n%s", want, doc.Markdown)
	}
	if strings.Contains(doc.Markdown, "page-1-figure-1.png") || doc.Images[0].Path != "Quire/attachments/soil-report/page-1-figure-1-2.png" {
		t.Errorf("old path kept: %q\n%s", doc.Images[0].Path, doc.Markdown)
	}
}

func TestPDFErrors(t *testing.T) {
	good := makePDF(t, false)
	tests := []struct {
		name string
		data []byte
		kind error
	}{
		{"locked.pdf", makePDF(t, true), ErrEncrypted}, // RC4, user password
		// AES-256 (revision 6), made once with
		// qpdf --encrypt user-pw owner-pw 256 -- plain.pdf aes256-password.pdf
		{"aes256-password.pdf", readFixture(t, "aes256-password.pdf"), ErrEncrypted},
		{"cut.pdf", good[:len(good)/2], ErrBroken},
		// Cut in the cross-reference table: every page is there and MuPDF
		// would repair it, but a download cut short is reported, not
		// silently read.
		{"cut-xref.pdf", good[:bytes.LastIndex(good, []byte("\nxref\n"))+30], ErrBroken},
		// Cut, then given an end marker: MuPDF's repair finds no page tree.
		{"patched.pdf", append(append([]byte{}, good[:len(good)/3]...), "\n%%EOF\n"...), ErrBroken},
		{"garbage.pdf", []byte("%PDF-1.7\nthis is not a pdf at all\n%%EOF\n"), ErrBroken},
		{"notpdf.pdf", []byte("<html>hello</html>"), ErrBroken},
		{"empty.pdf", nil, ErrBroken},
		{"blank.pdf", blankPDF(t), ErrEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := PDF(context.Background(), tt.data, tt.name)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("got %v (doc %v), want %v", err, doc != nil, tt.kind)
			}
			if !strings.Contains(err.Error(), tt.name) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// A PDF that needs a password says so in words a user can act on.
func TestPDFEncryptedMessage(t *testing.T) {
	_, err := PDF(context.Background(), makePDF(t, true), "Quire/Inbox/locked.pdf")
	want := "extract Quire/Inbox/locked.pdf: password protected: the PDF needs a password to open; remove it and add the file again"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// A PDF with only an owner password (printing or copying restricted) opens
// without one, as in any viewer.
func TestPDFOwnerPasswordOnly(t *testing.T) {
	needPDF(t)
	p := fpdf.New("P", "pt", "A4", "")
	p.SetProtection(fpdf.CnProtectPrint, "", "owner")
	p.AddPage()
	p.SetFont("Helvetica", "", 11)
	p.Cell(0, 14, "Readable without a password.")
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	doc, err := PDF(context.Background(), out.Bytes(), "restricted.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Text, "Readable without a password.") {
		t.Errorf("text: %q", doc.Text)
	}
}

// Running heads and feet (a title and "Page N of M" on every page) are not
// text of the document, nor headings.
func TestPDFRunningHeads(t *testing.T) {
	needPDF(t)
	p := fpdf.New("P", "pt", "A4", "")
	p.SetMargins(50, 60, 50)
	p.SetHeaderFunc(func() {
		p.SetY(20)
		p.SetFont("Helvetica", "B", 14)
		p.CellFormat(0, 16, "Quarterly Review - Draft", "", 0, "", false, 0, "")
		p.SetY(60)
	})
	p.SetFooterFunc(func() {
		p.SetY(-40)
		p.SetFont("Helvetica", "", 9)
		p.CellFormat(0, 12, fmt.Sprintf("Page %d of {nb}", p.PageNo()), "", 0, "C", false, 0, "")
	})
	p.AliasNbPages("")
	body := []string{
		"Sales rose in the north while the south held steady through the quarter.",
		"Costs fell after the move to the new warehouse in March.",
		"Hiring slowed; two teams merged and one office closed.",
		"The outlook for the next quarter is cautious but stable.",
	}
	for _, b := range body {
		p.AddPage()
		p.SetFont("Helvetica", "", 11)
		p.MultiCell(0, 14, b, "", "", false)
	}
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	doc, err := PDF(context.Background(), out.Bytes(), "review.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"Quarterly Review", "Page 1 of 4", "Page 4 of 4", "#"} {
		if strings.Contains(doc.Text, bad) || strings.Contains(doc.Markdown, "# ") {
			t.Errorf("output keeps %q:\n%s", bad, doc.Markdown)
		}
	}
	for _, w := range body {
		if !strings.Contains(doc.Text, w) {
			t.Errorf("text lacks %q:\n%s", w, doc.Text)
		}
	}
}

// Body text that starts each page the same way is not a running head: it
// is not set apart from the rest of the page.
func TestPDFRepeatedBodyKept(t *testing.T) {
	needPDF(t)
	p := fpdf.New("P", "pt", "A4", "")
	for range 4 {
		p.AddPage()
		p.SetFont("Helvetica", "", 11)
		p.MultiCell(0, 14, "Same opening line.", "", "", false)
		p.MultiCell(0, 14, "And the same second line.", "", "", false)
		p.MultiCell(0, 14, "Then the same third line.", "", "", false)
	}
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	doc, err := PDF(context.Background(), out.Bytes(), "same.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Same opening line.", "And the same second line.", "Then the same third line."} {
		if got := strings.Count(doc.Text, w); got != 4 {
			t.Errorf("%q appears %d times, want 4:\n%s", w, got, doc.Text)
		}
	}
}

// needPDF skips a test in a build without cgo, where PDF reports
// ErrUnsupported (see TestPDFWithoutCgo).
func needPDF(t testing.TB) {
	if !PDFSupported {
		t.Skip("built without cgo: no PDF support")
	}
}

func TestPDFWithoutCgo(t *testing.T) {
	if PDFSupported {
		t.Skip("built with cgo")
	}
	if _, err := PDF(context.Background(), []byte("%PDF-1.4\n%%EOF\n"), "a.pdf"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("got %v, want ErrUnsupported", err)
	}
}

func blankPDF(t testing.TB) []byte {
	p := fpdf.New("P", "pt", "A4", "")
	p.AddPage()
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Damaged PDFs of every kind come back as an error or a document, never a
// crash: flipped bytes and cuts at many offsets, each given an end marker
// so they reach MuPDF.
func TestPDFDamagedNeverPanics(t *testing.T) {
	good := makePDF(t, false)
	rnd := rand.New(rand.NewPCG(1, 2))
	cases := 0
	for n := 64; n < len(good); n += len(good) / 40 {
		PDF(context.Background(), append(append([]byte{}, good[:n]...), "\n%%EOF"...), "cut.pdf")
		cases++
	}
	for range 60 {
		d := append([]byte{}, good...)
		for range 1 + rnd.IntN(20) {
			d[rnd.IntN(len(d))] = byte(rnd.IntN(256))
		}
		doc, err := PDF(context.Background(), d, "flipped.pdf")
		if err == nil && doc == nil {
			t.Fatal("nil doc without an error")
		}
		cases++
	}
	t.Logf("%d damaged PDFs", cases)
}

func time2024() time.Time { return time.Date(2024, 5, 17, 10, 0, 0, 0, time.UTC) }

// TestPDFPageCap: a PDF longer than MaxPDFPages is read to that page and
// says so; a cancelled context stops the reading between pages.
func TestPDFPageCap(t *testing.T) {
	needPDF(t)
	p := fpdf.New("P", "pt", "A4", "")
	p.SetFont("Helvetica", "", 12)
	const pages = MaxPDFPages + 3
	for i := range pages {
		p.AddPage()
		p.Text(72, 72, fmt.Sprintf("Page text number %d.", i+1))
	}
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	doc, err := PDF(context.Background(), out.Bytes(), "long.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages != pages || doc.PagesRead != MaxPDFPages {
		t.Errorf("Pages %d, PagesRead %d; want %d and %d", doc.Pages, doc.PagesRead, pages, MaxPDFPages)
	}
	if strings.Contains(doc.Markdown, PageMarker(MaxPDFPages+1)) || !strings.Contains(doc.Markdown, PageMarker(MaxPDFPages)) {
		t.Errorf("the Markdown does not end at page %d", MaxPDFPages)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := PDF(ctx, out.Bytes(), "long.pdf"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}
