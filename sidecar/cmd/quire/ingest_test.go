package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/ingest"
)

// TestIngestResumesItemOfKilledRun: a `quire ingest` killed mid-item
// leaves it running in the queue; the next `quire ingest` of the same
// source (or of another) resumes it instead of refusing it as a
// duplicate.
func TestIngestResumesItemOfKilledRun(t *testing.T) {
	vault := t.TempDir()
	clip := filepath.Join(t.TempDir(), "clip.txt")
	os.WriteFile(clip, []byte("Rye is sown in autumn as a cover crop and cut in spring.\n"), 0o644)
	// What a kill -9 in the middle of the item leaves: claimed, running.
	q, err := ingest.OpenQueue(filepath.Join(vault, ".quire", "queue"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Add(clip); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := q.Claim(); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	q.Close()

	out, err := runCLI(t, "ingest", "--vault", vault, clip)
	if err != nil {
		t.Fatalf("rerun after a kill: %v\n%s", err, out)
	}
	if !strings.Contains(out, "[1/1] done → Quire/Sources/") {
		t.Errorf("rerun output:\n%s", out)
	}
}
