package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/config"
)

// TestSearchExplainThroughSidecar: `quire search --explain` beside a
// running sidecar prints how that sidecar read the query, with the
// synonyms its config turns on. The CLI used to read the query itself,
// with the vault's languages only, and listed no synonyms the sidecar
// searched.
func TestSearchExplainThroughSidecar(t *testing.T) {
	v := writeVault(t)
	st := t.TempDir()
	if err := os.WriteFile(filepath.Join(st, config.FileName), []byte("dense:\n  embedder: none\nsearch:\n  synonyms: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startQuire(t, "serve", "--vault", v, "--state", st, "--port", "0")
	cl, cf := attachTo(t, c, st)
	waitIdle(t, cl, 10*time.Second)

	const query = "old fiddle instrument"
	cli := startQuire(t, "search", "--vault", v, "--state", st, "--explain", query)
	if err := cli.wait(t, 30*time.Second); err != nil {
		t.Fatalf("quire search --explain: %v; stderr:\n%s", err, cli.stderr)
	}
	got := cli.stderr.String()
	for _, want := range []string{"synonyms (English notes):\n", "fiddle → violin"} {
		if !strings.Contains(got, want) {
			t.Errorf("explain through the sidecar (pid %d) lacks %q:\n%s", cf.PID, want, got)
		}
	}
}
