package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/grep"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// textPDF is a real PDF with one page per string.
func textPDF(t *testing.T, pages ...string) string {
	t.Helper()
	if !extract.PDFSupported {
		t.Skip("built without cgo: no PDF support")
	}
	p := fpdf.New("P", "pt", "A4", "")
	p.SetFont("Helvetica", "", 11)
	for _, s := range pages {
		p.AddPage()
		p.MultiCell(0, 14, s, "", "", false)
	}
	var out bytes.Buffer
	if err := p.Output(&out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestPDFSearchAskAndPrivacy: a PDF in the vault is found by search and
// cited by ask with its page, for every front end; one in a private
// folder is searched on this machine but never reaches the remote
// embedder or model.
func TestPDFSearchAskAndPrivacy(t *testing.T) {
	const secret = "PDFMARK-7f2e"
	srv := llmtest.New(t)
	srv.SetResponder(func(req llmtest.Request) llmtest.Reply {
		if req.API == llmtest.OpenAIEmbeddings {
			return llmtest.Reply{}
		}
		return llmtest.Reply{Text: "Run citric acid through the boiler every month [1]."}
	})
	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	writeNotes(t, vaultDir, map[string]string{
		"Kitchen/Coffee.md": "# Coffee\n\nI drink two cups a day.\n",
		"Kitchen/espresso manual.pdf": textPDF(t,
			"Unpacking: remove the foam and keep the box for transport.",
			"Descaling: run citric acid through the boiler every month to keep the espresso machine free of limescale."),
		"Health/lab.pdf": textPDF(t, "Blood test "+secret+": ferritin low, limescale unrelated."),
	})
	os.MkdirAll(stateDir, 0o755)
	cfg := "private: [Health/]\ndense:\n  embedder: model\n" +
		"model:\n  provider: openai\n  endpoint: " + srv.URL + "\n  model: fake\n  embed_model: fake-embed\n  remote: \"true\"\n"
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir, Engine: engine.Options{InboxPoll: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.EnableDense(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}

	res, err := e.Search(ctx, engine.Query{Text: "descaling citric acid"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Passages) == 0 || res.Passages[0].Path != "Kitchen/espresso manual.pdf" || res.Passages[0].Page != 2 {
		t.Fatalf("search: %+v, want the manual's page 2 first", res.Passages)
	}
	if got := res.Passages[0].Place(); got != "espresso manual, page 2" {
		t.Errorf("place %q, want the PDF's name and page", got)
	}
	private, err := e.Search(ctx, engine.Query{Text: "ferritin blood test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(private.Passages) == 0 || private.Passages[0].Path != "Health/lab.pdf" {
		t.Errorf("the private PDF is not searched on this machine: %+v", private.Passages)
	}
	mcp, err := e.Search(ctx, engine.Query{Text: "ferritin blood test", MCP: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range mcp.Passages {
		if p.Path == "Health/lab.pdf" {
			t.Errorf("an MCP client was given the private PDF")
		}
	}

	ans, err := e.Ask(ctx, engine.Question{Text: "How do I descale the espresso machine?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Citations) == 0 || ans.Citations[0].Path != "Kitchen/espresso manual.pdf" || ans.Citations[0].Page != 2 {
		t.Fatalf("ask cites %+v, want the manual's page 2", ans.Citations)
	}
	saved, err := e.SaveAnswer(ans)
	if err != nil {
		t.Fatal(err)
	}
	note, err := os.ReadFile(filepath.Join(vaultDir, filepath.FromSlash(saved)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(note), "[[Kitchen/espresso manual.pdf#page=2|") {
		t.Errorf("the saved answer does not link to the PDF's page:\n%s", note)
	}
	if _, err := e.Ask(ctx, engine.Question{Text: "What did the blood test say about ferritin and limescale?"}, nil); err != nil {
		t.Fatal(err)
	}

	for i, req := range srv.Requests() {
		all := append([]string{}, req.Input...)
		for _, m := range req.Messages {
			all = append(all, m.Content)
		}
		if strings.Contains(strings.Join(all, "\n"), secret) {
			t.Errorf("request %d (%s) carries the private PDF", i, req.API)
		}
	}
}

// TestGrepLeavesPDFsOut: grep reads the vault's notes, not the PDFs the
// index reads (their bytes would be reported skipped as binary, or match
// as noise).
func TestGrepLeavesPDFsOut(t *testing.T) {
	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	writeNotes(t, vaultDir, map[string]string{
		"Note.md":    "# Note\n\nFlate streams compress.\n",
		"manual.pdf": textPDF(t, "Descaling the boiler."),
	})
	os.MkdirAll(stateDir, 0o755)
	res, err := engine.GrepFiles(context.Background(), vaultDir, stateDir, grep.Options{Pattern: "Flate"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 1 || len(res.Skipped) != 0 || len(res.Matches) != 1 {
		t.Errorf("grep: %d files, skipped %+v, %d matches; want the note alone", res.Files, res.Skipped, len(res.Matches))
	}
}
