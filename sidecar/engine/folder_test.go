package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/engine"
)

// TestFolderOfUserNotesCaughtAtStart: a config.yaml edited by hand to
// point folder at the user's notes is caught when the engine opens — a
// warning and a status entry naming the files — not only when ingest
// would write: nothing is written there, and its Inbox/ stays indexed.
func TestFolderOfUserNotesCaughtAtStart(t *testing.T) {
	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	notes := map[string]string{
		"Kitchen/log.md":          "# What I cooked\n\nSoup on Monday.\n",
		"Kitchen/Inbox/recipe.md": "# Barley soup\n\nSimmer barley with leeks for an hour.\n",
	}
	writeNotes(t, vaultDir, notes)
	os.MkdirAll(stateDir, 0o755)
	os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte("folder: Kitchen\ndense:\n  embedder: none\n"), 0o644)
	var warns []string
	e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir, Queue: true, Warn: func(w string) { warns = append(warns, w) },
		Engine: engine.Options{InboxPoll: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if len(warns) != 1 || !strings.Contains(warns[0], "Kitchen/log.md") {
		t.Errorf("warnings at start %q, want one naming Kitchen/log.md", warns)
	}
	ctx := context.Background()
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	st, _ := e.Status(ctx)
	said := false
	for _, w := range st.Warnings {
		said = said || w.Path == "Kitchen" && strings.Contains(w.Reason, "Kitchen/log.md")
	}
	if !said || st.Notes != 2 {
		t.Errorf("status: %d notes, warnings %+v; want both notes indexed (Inbox/ too) and a warning naming Kitchen/log.md", st.Notes, st.Warnings)
	}
	if _, err := e.SaveAnswer(ask.Answer{Question: "Soup?", Text: "Barley."}); err == nil {
		t.Error("an answer was saved into the user's folder")
	}
	page := filepath.Join(dir, "page.txt")
	os.WriteFile(page, []byte("Leek notes\n\nLeeks like cool weather.\n"), 0o644)
	if _, _, err := e.AddSource(page, false); err == nil || !strings.Contains(err.Error(), "Kitchen/log.md") {
		t.Errorf("ingest into the user's folder: %v, want refused naming Kitchen/log.md", err)
	}
	for p, body := range notes {
		if b, _ := os.ReadFile(filepath.Join(vaultDir, filepath.FromSlash(p))); string(b) != body {
			t.Errorf("%s changed", p)
		}
	}
	if _, err := os.Stat(filepath.Join(vaultDir, "Kitchen", "Answers")); err == nil {
		t.Error("Kitchen/Answers/ was created")
	}
}
