package compile

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

// pdfBytes writes an n-page report: a title on page one, a heading and
// several paragraphs of body text on every page.
func pdfBytes(t testing.TB, n int) []byte {
	t.Helper()
	p := fpdf.New("P", "pt", "A4", "")
	p.SetTitle("Soil Moisture and Crop Yield", true)
	p.SetAuthor("Ada Field", true)
	p.SetCreationDate(time.Date(2024, 5, 17, 10, 0, 0, 0, time.UTC))
	p.SetMargins(50, 50, 50)
	body := "Field trials over three seasons show that yield rises with soil moisture up to a point and then falls, because waterlogged roots cannot take up oxygen. " +
		"The effect is strongest in clay soils, where water drains slowly. Yield peaked at a volumetric water content of about thirty percent. "
	for i := 1; i <= n; i++ {
		p.AddPage()
		if i == 1 {
			p.SetFont("Helvetica", "B", 24)
			p.CellFormat(0, 30, "Soil Moisture and Crop Yield", "", 1, "", false, 0, "")
			p.Ln(12)
		}
		p.SetFont("Helvetica", "B", 16)
		p.CellFormat(0, 20, "Season "+strconv.Itoa(i), "", 1, "", false, 0, "")
		p.Ln(8)
		p.SetFont("Helvetica", "", 11)
		for j := range 8 {
			p.MultiCell(0, 14, "Plot "+strconv.Itoa(i*10+j)+". "+body, "", "", false)
			p.Ln(6)
		}
	}
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
