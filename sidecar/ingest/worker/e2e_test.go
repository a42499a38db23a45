package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// The end-to-end tests run the real compiler against a fake model that
// answers each task (read a chunk, merge, plan) with JSON built from words
// both test sources contain, and a local test site behind the fake network.

// Phrases the HTML article and the PDF both contain.
const (
	quote   = "yield rises with soil moisture up to a point"
	term    = "waterlogged"
	concept = "Soil moisture"
	person  = "Ada Field"
)

// scripted answers by task; hold, when set, blocks every reading call
// until it is closed (after saying so on reading).
type scripted struct {
	srv     *llmtest.Server
	calls   atomic.Int32
	hold    chan struct{}
	reading chan struct{}
	title   string // the plan's title, when set
}

func newScripted(t *testing.T) *scripted {
	t.Helper()
	m := &scripted{srv: llmtest.New(t)}
	m.srv.SetResponder(func(req llmtest.Request) llmtest.Reply {
		m.calls.Add(1)
		sys := ""
		if len(req.Messages) > 0 {
			sys = req.Messages[0].Content
		}
		var v any
		switch {
		case strings.HasPrefix(sys, "Task: take notes"):
			if m.hold != nil {
				select {
				case m.reading <- struct{}{}:
				default:
				}
				<-m.hold
			}
			v = map[string]any{
				"points":    []string{"Yield rises with soil moisture, then falls."},
				"terms":     []map[string]string{{"term": term, "definition": "Soil so wet that roots lack oxygen."}},
				"quotes":    []string{quote},
				"entities":  []map[string]string{{"name": person, "kind": "person", "description": "Author of the study."}},
				"relations": []any{},
			}
		case strings.HasPrefix(sys, "Task: merge"):
			v = map[string]any{"points": []string{"Yield rises with soil moisture, then falls."}, "terms": []any{}, "quotes": []string{quote}, "entities": []any{}, "relations": []any{}}
		case strings.HasPrefix(sys, "Task: plan"):
			title := "Soil Moisture and Crop Yield"
			if m.title != "" {
				title = m.title
			}
			v = map[string]any{
				"title":          title,
				"oneLiner":       "Yield peaks at moderate soil moisture.",
				"summary":        "Field trials show yield rises with soil moisture and then falls when roots are waterlogged.",
				"keyIdeas":       []string{"Too much water harms roots.", "Clay soils show the effect most."},
				"tags":           []string{"agronomy"},
				"concepts":       []map[string]string{{"name": concept, "description": "Water held in the soil."}},
				"entities":       []map[string]string{{"name": person, "kind": "person", "description": "Author of the study."}},
				"connections":    []map[string]string{{"page": "Irrigation", "reason": "Both are about watering crops."}},
				"contradictions": []any{},
			}
		default:
			return llmtest.Reply{Status: 400, Error: "unknown task"}
		}
		b, _ := json.Marshal(v)
		return llmtest.Reply{Text: string(b)}
	})
	return m
}

func (m *scripted) client(t testing.TB) *llm.Client {
	c, err := llm.New(llm.Config{Provider: llm.OpenAI, Endpoint: m.srv.URL, Model: "fake", Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// withCompiler makes the rig run the real compiler with model m, one
// existing page (Notes/Irrigation.md) found by search and known to Exists.
func withCompiler(m *scripted) rigOption {
	return func(o *Options, r *rig) {
		os.MkdirAll(filepath.Join(r.vault, "Notes"), 0o755)
		os.WriteFile(filepath.Join(r.vault, "Notes", "Irrigation.md"), []byte("# Irrigation\n\nWater crops at the root.\n"), 0o644)
		titles := map[string]string{"Notes/Irrigation.md": "Irrigation"}
		o.Compile = func() compile.Options {
			return compile.Options{
				Model: m.client(r.t),
				Related: func(context.Context, string, int, compile.Leave) ([]compile.Page, error) {
					return []compile.Page{{Path: "Notes/Irrigation.md", Title: "Irrigation", Snippet: "Water crops at the root.", Score: 1}}, nil
				},
				Exists: Exists(r.vault, titles),
			}
		}
	}
}

func e2eRig(t *testing.T, m *scripted) *rig {
	r := newRig(t, withCompiler(m))
	r.w.compile = compile.Compile
	return r
}

// makePDF writes a three-page report with a heading per page and a figure.
func makePDF(t testing.TB) []byte {
	t.Helper()
	if !extract.PDFSupported {
		t.Skip("this build reads no PDFs (no cgo)")
	}
	p := fpdf.New("P", "pt", "A4", "")
	p.SetTitle("Soil Moisture and Crop Yield", true)
	p.SetAuthor(person, true)
	p.SetMargins(50, 50, 50)
	pages := []struct{ head, body string }{
		{"Soil Moisture and Crop Yield", "Field trials by " + person + " show that " + quote + " and then falls."},
		{"Methods", "Roots that are " + term + " cannot take up oxygen. Sensors were buried at two depths in each plot."},
		{"Results", "Yield peaked at a volumetric water content of about thirty percent in clay soils."},
	}
	for i, pg := range pages {
		p.AddPage()
		p.SetFont("Helvetica", "B", 20)
		p.CellFormat(0, 26, pg.head, "", 1, "", false, 0, "")
		p.Ln(10)
		p.SetFont("Helvetica", "", 11)
		p.MultiCell(0, 14, pg.body, "", "", false)
		if i == 1 {
			img := image.NewRGBA(image.Rect(0, 0, 160, 100))
			for x := range 160 {
				for y := range 100 {
					img.Set(x, y, color.RGBA{uint8(x), uint8(y * 2), 90, 255})
				}
			}
			var b bytes.Buffer
			png.Encode(&b, img)
			opt := fpdf.ImageOptions{ImageType: "PNG"}
			p.RegisterImageOptionsReader("figure", opt, &b)
			p.ImageOptions("figure", 50, 300, 160, 100, false, opt, 0, "")
		}
	}
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func e2eArticle() []byte {
	return article("Soil Moisture and Crop Yield",
		"A study by "+person+" finds that "+quote+" and then falls, because "+term+" roots cannot take up oxygen.")
}

// wantCompiled checks what every summarised source must become: a source
// note with all sections, linked concept pages, and an index entry.
func wantCompiled(t *testing.T, r *rig, d ingest.Done) string {
	t.Helper()
	if !d.Summarised || d.Note == "" {
		t.Fatalf("done %+v, want a summarised note", d)
	}
	note := readFile(t, filepath.Join(r.vault, d.Note))
	for _, s := range []string{"## Summary", "## Key ideas", "## Glossary", "## Quotes", "## Connections",
		"summarised: true", "raw: Quire/raw/", quote, "**" + term + "**",
		"[[Quire/Concepts/" + concept + "|" + concept + "]]", "[[Notes/Irrigation|Irrigation]]"} {
		if !strings.Contains(note, s) {
			t.Errorf("%s lacks %q:\n%s", d.Note, s, note)
		}
	}
	page := readFile(t, filepath.Join(r.vault, "Quire", "Concepts", concept+".md"))
	title := strings.TrimSuffix(filepath.Base(d.Note), ".md")
	if !strings.Contains(page, "## From [["+strings.TrimSuffix(d.Note, ".md")) {
		t.Errorf("concept page does not link back to %s:\n%s", title, page)
	}
	index := readFile(t, filepath.Join(r.vault, "Quire", "index.md"))
	if !strings.Contains(index, strings.TrimSuffix(d.Note, ".md")) {
		t.Errorf("Quire/index.md has no entry for %s:\n%s", d.Note, index)
	}
	return note
}

func TestEndToEndHTML(t *testing.T) {
	m := newScripted(t)
	r := e2eRig(t, m)
	r.site.serve("/soil", "text/html; charset=utf-8", e2eArticle())
	r.run()
	it := r.add("http://site.example/soil")
	d := wantDone(t, r.ev.finished(t, it.ID))
	wantCompiled(t, r, d)
	steps := strings.Join(r.ev.steps(it.ID), ",")
	for _, s := range []string{"queued", "fetching", "extracting", "reading 1/1", "planning", "writing"} {
		if !strings.Contains(steps, s) {
			t.Errorf("steps %s lack %s", steps, s)
		}
	}

	// The same page with a tracking parameter: refused at once, with no
	// fetch and no model call.
	calls, hits := m.calls.Load(), r.site.hits.Load()
	_, _, err := r.w.Add("http://site.example/soil?utm_source=x", false)
	if code, msg := Failure(err); code != ingest.FailDuplicate || !strings.Contains(msg, d.Note) {
		t.Fatalf("second add: %s %q, want duplicate naming %s", code, msg, d.Note)
	}
	// A page queued after it, which fails at its fetch (404) before any
	// model call: once it has finished, anything the refused add had queued
	// would have run (one item at a time, in order). The site then saw
	// exactly that page's fetch and the model nothing.
	barrier := r.add("http://site.example/missing")
	if e := r.ev.finished(t, barrier.ID); e.typ != "ingest.Failed" {
		t.Fatalf("the page after: %s %+v, want it to fail at its fetch", e.typ, e.payload)
	}
	if m.calls.Load() != calls || r.site.hits.Load() != hits+1 {
		t.Errorf("the duplicate cost %d model calls and %d fetches (the page after: 1)", m.calls.Load()-calls, r.site.hits.Load()-hits)
	}
}

func TestEndToEndPDF(t *testing.T) {
	m := newScripted(t)
	r := e2eRig(t, m)
	r.site.serve("/report.pdf", "application/pdf", makePDF(t))
	r.run()
	it := r.add("http://site.example/report.pdf")
	d := wantDone(t, r.ev.finished(t, it.ID))
	note := wantCompiled(t, r, d)
	if !strings.Contains(note, "raw: Quire/raw/Soil Moisture and Crop Yield.pdf") {
		t.Errorf("the PDF original is not linked:\n%s", note)
	}
	figs, _ := filepath.Glob(filepath.Join(r.vault, "Quire", "attachments", "*", "*"))
	if len(figs) == 0 {
		t.Error("no figure saved under Quire/attachments/")
	}
}

// TestEndToEndTextDuplicate: the article's text at another address is
// refused by its text, without a model call.
func TestEndToEndTextDuplicate(t *testing.T) {
	m := newScripted(t)
	r := e2eRig(t, m)
	r.site.serve("/soil", "text/html", e2eArticle())
	r.site.serve("/mirror", "text/html", e2eArticle())
	r.run()
	wantDone(t, r.ev.finished(t, r.add("http://site.example/soil").ID))
	calls := m.calls.Load()
	it := r.add("http://mirror.example/mirror")
	wantFailed(t, r.ev.finished(t, it.ID), ingest.FailDuplicate, "the same text")
	if m.calls.Load() != calls {
		t.Errorf("the duplicate cost %d model calls", m.calls.Load()-calls)
	}
}
