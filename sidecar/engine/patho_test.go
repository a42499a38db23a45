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
)

// prose is about size bytes of sentences with a paragraph break now and
// then, each sentence numbered so that no two passages are alike.
func prose(word string, size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "Line %d of the %s export, kept as it came. ", i, word)
		if i%6 == 5 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// TestPathologicalVaultServes opens the engine on a vault holding a 617 KB
// note with two headings, a 5 MB note, a note of 100,000 headings, and the
// source note a no-model ingest of an 800 KB text writes into it: each
// once crashed the index (and with it quire serve and every MCP call).
// Nothing crashes, and every note, all under the size cap, is searchable.
func TestPathologicalVaultServes(t *testing.T) {
	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	var heads strings.Builder
	heads.WriteString("Heading marathon about narwhals.\n\n")
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&heads, "%s Heading %d\n", strings.Repeat("#", 1+i%6), i)
	}
	notes := map[string]string{
		"plain.md":         "# Plain\n\nQuinces ripen in October.\n",
		"two-headings.md":  "# Zebrafinch log\n\n" + prose("zebrafinch", 300<<10) + "\n## Second half\n\n" + prose("zebrafinch", 317<<10),
		"five-mb.md":       "# Okapi dump\n\n" + prose("okapi", 5_000_000),
		"headings-100k.md": heads.String(),
	}
	writeNotes(t, vaultDir, notes)
	os.MkdirAll(stateDir, 0o755)
	os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte("dense:\n  embedder: none\n"), 0o644)
	text := filepath.Join(dir, "pangolin.txt")
	os.WriteFile(text, []byte("Pangolin field notes\n\n"+prose("pangolin", 800<<10)), 0o644)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir, Queue: true, Engine: engine.Options{InboxPoll: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	done := watchIngest(t, e)
	go e.RunIngest(ctx)
	if _, _, err := e.AddSource(text, false); err != nil {
		t.Fatal(err)
	}
	if ev := awaitIngest(ctx, t, done); ev == nil {
		t.Fatal("ingest of an 800 KB text did not finish")
	} else if _, ok := ev.(ingest.Done); !ok {
		t.Fatalf("ingest of an 800 KB text: %+v", ev)
	}
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	st, err := e.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, s := range st.Skipped {
		skipped[s.Path] = s.Reason
	}
	for word, want := range map[string]string{"quinces": "plain.md", "zebrafinch": "two-headings.md", "okapi": "five-mb.md", "narwhals": "headings-100k.md", "pangolin": "Quire/Sources/"} {
		r, err := e.Search(ctx, engine.Query{Text: word, K: 5})
		if err != nil {
			t.Fatalf("search %q: %v", word, err)
		}
		found := false
		for _, h := range r.Passages {
			found = found || strings.HasPrefix(h.Path, want)
		}
		if !found {
			// Every one is under the size cap: a skip, even one naming
			// the note, means it could not be read.
			t.Errorf("%q: %s not found (skipped: %q)", word, want, skipped)
		}
	}
}

// watchIngest returns the ingest items the engine finishes (done or
// failed), for as long as the test runs.
func watchIngest(t *testing.T, e *engine.Engine) <-chan ingest.Event {
	done := make(chan ingest.Event, 4)
	t.Cleanup(e.Subscribe(func(ev engine.Event) {
		if ie, ok := ev.(*engine.IngestEvent); ok {
			switch ie.Event.(type) {
			case ingest.Done, ingest.Failed:
				done <- ie.Event
			}
		}
	}))
	return done
}

// awaitIngest is the next item watchIngest reports, nil when ctx ends first.
func awaitIngest(ctx context.Context, t *testing.T, done <-chan ingest.Event) ingest.Event {
	t.Helper()
	select {
	case ev := <-done:
		return ev
	case <-ctx.Done():
		return nil
	}
}

// writeNotes writes notes (vault path → text) into the vault folder.
func writeNotes(t *testing.T, vaultDir string, notes map[string]string) {
	t.Helper()
	for p, body := range notes {
		full := filepath.Join(vaultDir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
