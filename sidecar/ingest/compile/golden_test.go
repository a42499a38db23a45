package compile

import (
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden notes in proto/testdata/notes")

// notesDir holds the generated notes the plugin's tests read (beside ask's
// saved answer): the frontmatter keys, the callout titles and the sections
// the plugin looks for are a contract between Go and TypeScript.
const notesDir = "../../../proto/testdata/notes"

// TestSourceNoteGolden writes the source note of an ingest with no model:
// the plugin's Summarise again reads its frontmatter (quire, quire_kind,
// source, summarised) and its "Not summarised" warning callout
// (plugin/tests/ingest.test.ts).
func TestSourceNoteGolden(t *testing.T) {
	doc := &extract.Doc{Title: "Growing basil on a windowsill", URL: "https://example.test/basil", Site: "Example Garden",
		Lang: "en", Text: "Basil wants six hours of sun and water at the root.", Markdown: "# Growing basil on a windowsill\n\nBasil wants six hours of sun and water at the root.\n"}
	c := &compiler{src: Source{Doc: doc, Origin: "https://example.test/basil", Hash: extract.TextHash(doc),
		Raw: "Quire/raw/growing-basil.html"}, captured: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	note, err := renderSource(c, draft{Title: doc.Title, Reason: "No model is configured"})
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, filepath.Join(notesDir, "Quire", "Sources", "Growing basil on a windowsill.md"), note, *update)
}
