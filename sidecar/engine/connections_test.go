package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
)

// TestConnectionsLeaveBeforeTheCut: an ingested source's Connections are
// ranked by the engine's one related search, with what is no page (the
// review items, Quire's index, the inbox) left out before the cut to k.
// Here fifty such notes outrank the three kitchen notes that mention cast
// iron; ingest ranked them in a second search of its own and dropped them
// after its cut, so the note listed no connection at all.
func TestConnectionsLeaveBeforeTheCut(t *testing.T) {
	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	const strong = "# Seasoning cast iron\n\nWipe a thin layer of oil over a cast iron skillet and heat it until the fat polymerises. Cast iron rusts when it is left wet.\n"
	notes := map[string]string{
		"Quire/" + compile.OwnerFile: "Quire writes its notes in this folder.\n",
		"Quire/index.md":             strong,
		"Kitchen/Pans.md":            "# Pans\n\nThe cast iron skillet is oiled thinly and heated after each wash, since cast iron rusts when left wet.\n",
		"Kitchen/Cornbread.md":       "# Cornbread\n\nBake cornbread in a cast iron skillet: heat a thin layer of oil in it until it smokes.\n",
	}
	for i := range 45 {
		notes[fmt.Sprintf("Quire/Review/Item %02d.md", i)] = strong
	}
	for i := range 4 {
		notes[fmt.Sprintf("Quire/Inbox/Clip %d.md", i)] = strong
	}
	// So that the words above stay rare enough to rank by.
	for i := range 200 {
		notes[fmt.Sprintf("Garden/Plot %03d.md", i)] = fmt.Sprintf("# Plot %d\n\nBeans, peas and lettuce in row %d.\n", i, i)
	}
	writeNotes(t, vaultDir, notes)
	os.MkdirAll(stateDir, 0o755)
	os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte("dense:\n  embedder: none\n"), 0o644)
	src := filepath.Join(dir, "seasoning.txt")
	os.WriteFile(src, []byte("Seasoning cast iron\n\nWipe a thin layer of oil over a cast iron skillet and heat it until the fat polymerises. Cast iron rusts when it is left wet.\n"), 0o644)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir, Queue: true, Engine: engine.Options{InboxPoll: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	done := watchIngest(t, e)
	worked := make(chan error, 1)
	go func() { worked <- e.RunIngest(ctx) }()
	defer func() { cancel(); <-worked }() // before the vault goes: the worker writes its log after an item
	if _, _, err := e.AddSource(src, false); err != nil {
		t.Fatal(err)
	}
	ev := awaitIngest(ctx, t, done)
	d, ok := ev.(ingest.Done)
	if !ok {
		t.Fatalf("ingest: %+v", ev)
	}
	body, err := os.ReadFile(filepath.Join(vaultDir, filepath.FromSlash(d.Note)))
	if err != nil {
		t.Fatal(err)
	}
	_, conns, _ := strings.Cut(string(body), "## Connections\n")
	conns, _, _ = strings.Cut(conns, "\n## ")
	for _, want := range []string{"Kitchen/Pans", "Kitchen/Cornbread"} {
		if !strings.Contains(conns, want) {
			t.Errorf("connections lack %s:\n%s", want, conns)
		}
	}
	for _, not := range []string{"Quire/Review/", "Quire/index", "Quire/Inbox/"} {
		if strings.Contains(conns, not) {
			t.Errorf("connections list %s, which is no page:\n%s", not, conns)
		}
	}
}
