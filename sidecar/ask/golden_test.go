package ask

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/quire-app/quire/sidecar/internal/golden"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

var update = flag.Bool("update", false, "rewrite the golden notes in proto/testdata/notes")

// notesDir holds the generated notes the plugin's tests read
// (plugin/tests/ask.test.ts): a second contract between Go and
// TypeScript, kept beside the protocol's examples.
const notesDir = "../../proto/testdata/notes"

// golden compares a generated note with notesDir/name, or rewrites it
// with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.File(t, filepath.Join(notesDir, filepath.FromSlash(name)), got, *update)
}

// TestAnswerNoteGolden writes a saved answer citing a passage whose title
// and heading hold " › ", and the note it cites: the plugin's hover reads
// the heading list from the answer's frontmatter and the passage from the
// note, as it does in a vault.
func TestAnswerNoteGolden(t *testing.T) {
	const cited = "---\ntitle: Phone › Desktop\n---\n# Setup\n\n## Settings › Sync\n\nTurn on vault sync in the settings pane so the notes travel between devices.\n"
	start := strings.Index(cited, "# Setup")
	text := strings.TrimSpace(cited[start:])
	ans := Answer{Question: "How do I turn on vault sync?", Lang: "en", Grounded: true, Extracted: true,
		Text: "Turn on vault sync in the settings pane [1].",
		Citations: []Citation{{N: 1, Hash: hashText(text), Passage: search.Passage{ID: "Devices/Sync.md#0", Path: "Devices/Sync.md",
			Title: "Phone › Desktop", Headings: []string{"Setup", "Settings › Sync"}, Start: start, End: start + len(text), Text: text}}}}
	note, err := RenderNote(ans, time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC), vault.Private{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "Devices/Sync.md", []byte(cited))
	golden(t, "Quire/Answers/How do I turn on vault sync.md", note)
}
