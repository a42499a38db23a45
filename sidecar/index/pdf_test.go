package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/quire-app/quire/sidecar/ingest/extract"
)

// pagesPDF writes a real PDF whose page i (1-based) says text(i).
func pagesPDF(t *testing.T, n int, text func(i int) string, protect bool) string {
	t.Helper()
	if !extract.PDFSupported {
		t.Skip("built without cgo: no PDF support")
	}
	p := fpdf.New("P", "pt", "A4", "")
	if protect {
		p.SetProtection(fpdf.CnProtectPrint, "secret", "owner")
	}
	p.SetFont("Helvetica", "", 11)
	for i := 1; i <= n; i++ {
		p.AddPage()
		if s := text(i); s != "" {
			p.MultiCell(0, 14, s, "", "", false)
		}
	}
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// pageWord is a word found on page i of the almanac only.
func pageWord(i int) string { return "folio" + string(rune('a'+i%26)) + string(rune('a'+i/26)) }

func (f *fixture) entry(p string) Entry {
	f.t.Helper()
	all, err := f.ix.cat.entries()
	if err != nil {
		f.t.Fatal(err)
	}
	e, ok := all[p]
	if !ok {
		f.t.Fatalf("%s is not in the catalog", p)
	}
	return e
}

// TestPDFsInTheVault: the text of a PDF in the vault is searched like a
// note's, each passage carrying the page it is on; a second run reads
// nothing again; a PDF that cannot be read (locked, a scan, broken) is
// named with why and the run goes on; a long one is capped and says so.
func TestPDFsInTheVault(t *testing.T) {
	manual := pagesPDF(t, 3, func(i int) string {
		return map[int]string{
			1: "Unpacking the espresso machine. Remove the foam and keep the box.",
			2: "Descaling: run citric acid through the boiler every month.",
			3: "Warranty: the portafilter gasket is covered for two years.",
		}[i]
	}, false)
	long := pagesPDF(t, pdfPages+5, func(i int) string {
		return fmt.Sprintf("Chapter %s of the almanac. %s", pageWord(i), strings.Repeat("Tides and moons and harvest dates recorded. ", 40))
	}, false)
	f := newFixture(t, map[string]string{
		"note.md":              "# Coffee\n\nI bought an espresso machine.\n",
		"Manuals/espresso.pdf": manual,
		"locked.pdf":           pagesPDF(t, 1, func(int) string { return "secret xylophone" }, true),
		"scan.pdf":             pagesPDF(t, 2, func(int) string { return "" }, false),
		"broken.pdf":           "%PDF-1.7\nthis is no PDF at all\n%%EOF\n",
		"almanac.pdf":          long,
	})
	st := f.run()
	if st.Changed != 6 {
		t.Errorf("first run changed %d files, want 6 (skipped %v)", st.Changed, st.Skipped)
	}

	hits := f.search("portafilter gasket")
	if len(hits) == 0 || hits[0].Path != "Manuals/espresso.pdf" {
		t.Fatalf("portafilter: got %s, want the manual first", paths(hits))
	}
	if hits[0].Page != 3 {
		t.Errorf("portafilter is on page %d, want 3", hits[0].Page)
	}
	if strings.Contains(hits[0].Text, "<!--") || !strings.Contains(hits[0].Text, "portafilter") {
		t.Errorf("the hit's text is %q: want the page's words, no page markers", hits[0].Text)
	}
	if h := f.search("citric boiler"); len(h) == 0 || h[0].Page != 2 {
		t.Errorf("descaling: got %+v, want page 2", h)
	}
	if h := f.search("xylophone"); len(h) != 0 {
		t.Errorf("the locked PDF's text was found: %s", paths(h))
	}

	for p, want := range map[string]string{
		"locked.pdf": "needs a password",
		"scan.pdf":   "no text layer",
		"broken.pdf": "broken",
	} {
		if e := f.entry(p); e.Chunks != 0 || !strings.Contains(e.Warning, want) {
			t.Errorf("%s: %d passages, warning %q; want none and %q", p, e.Chunks, e.Warning, want)
		}
	}
	al := f.entry("almanac.pdf")
	if al.Chunks == 0 || al.Chunks > pdfPassages {
		t.Errorf("almanac: %d passages, want 1..%d", al.Chunks, pdfPassages)
	}
	if !strings.Contains(al.Warning, fmt.Sprintf("first %d of its %d pages", pdfPages, pdfPages+5)) {
		t.Errorf("almanac's warning %q does not say the pages were capped", al.Warning)
	}
	if h := f.search(pageWord(pdfPages)); len(h) != 1 || h[0].Page != pdfPages {
		t.Errorf("the last page read: got %+v, want one hit on page %d", h, pdfPages)
	}
	if h := f.search(pageWord(pdfPages + 2)); len(h) != 0 {
		t.Errorf("a page past the cap was indexed: %+v", h[0])
	}
	warned := map[string]bool{}
	for _, w := range st.Warnings {
		warned[w.Path] = true
	}
	for _, p := range []string{"locked.pdf", "scan.pdf", "broken.pdf", "almanac.pdf"} {
		if !warned[p] {
			t.Errorf("the run's warnings do not name %s: %v", p, st.Warnings)
		}
	}

	if st := f.run(); st.Changed != 0 {
		t.Errorf("a second run read %d files again, want 0", st.Changed)
	}

	// An edited PDF is read again; a removed one leaves the index.
	f.write("Manuals/espresso.pdf", pagesPDF(t, 1, func(int) string { return "Steam wand purge after frothing." }, false))
	if st := f.run(); st.Changed != 1 {
		t.Errorf("after an edit: changed %d, want 1", st.Changed)
	}
	if h := f.search("portafilter"); len(h) != 0 {
		t.Errorf("the old text is still found after the edit: %s", paths(h))
	}
	if h := f.search("frothing"); len(h) == 0 || h[0].Page != 1 {
		t.Errorf("frothing: got %+v, want the new page 1", h)
	}
	if err := os.Remove(filepath.Join(f.vault, "Manuals", "espresso.pdf")); err != nil {
		t.Fatal(err)
	}
	if st, err := f.ix.RunPaths(context.Background(), []string{"Manuals/espresso.pdf"}); err != nil || st.Removed != 1 {
		t.Errorf("removing the PDF: %+v, %v; want 1 removed", st, err)
	}
}

// TestPageChunks: a PDF's passages never run across pages, each knows
// its page (an empty page gives none), and one with no heading on its
// page is under the heading the page before ended in.
func TestPageChunks(t *testing.T) {
	f := newFixture(t, nil)
	raw := []byte(extract.PageMarker(1) + "\n\n# Setup\n\nOne.\n\n" + extract.PageMarker(2) + "\n\n" +
		extract.PageMarker(3) + "\n\nThree starts here\nand goes on.\n")
	var got []string
	for _, c := range f.ix.pageChunks(raw) {
		got = append(got, fmt.Sprintf("%d %q %v", c.page, stripPageMarkers(string(raw[c.Start:c.End])), c.Headings))
	}
	want := []string{`1 "# Setup\n\nOne." [Setup]`, `3 "Three starts here\nand goes on." [Setup]`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
