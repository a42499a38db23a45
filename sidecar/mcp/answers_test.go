package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/state"
)

// TestAskLeavesSavedAnswersOut asks, through the ask tool of an engine in
// this process, a question that a saved answer matches best. With a
// generated folder other than Quire, the answer must still not cite the
// saved answer: answers are not sources. (MCP's in-process ask once built
// its own asker without the answers folder and cited Notes/Answers/.)
func TestAskLeavesSavedAnswersOut(t *testing.T) {
	v := filepath.Join(t.TempDir(), "vault")
	writeNotes(t, v, map[string]string{
		"Kitchen/Starter.md":          "# Starter\n\nFeed the sourdough starter once a day with equal weights of flour and water.\n",
		"Notes/Answers/Old answer.md": "# How often do I feed the sourdough starter?\n\nFeed the sourdough starter once a day, the answer said: feed the starter daily.\n",
	})
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := config.Default()
	cfg.Folder = "Notes"
	ix, err := index.Open(v, st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	e, err := engine.New(engine.Options{Index: ix, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Reindex(context.Background(), false, nil); err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, e)
	var ans Answer
	call(t, cs, "ask", map[string]any{"question": "How often do I feed the sourdough starter?"}, &ans)
	if len(ans.Citations) == 0 {
		t.Fatalf("no citations: %+v", ans)
	}
	for _, c := range ans.Citations {
		if strings.HasPrefix(c.Path, "Notes/Answers/") {
			t.Errorf("the answer cites the saved answer %s", c.Path)
		}
	}
}
