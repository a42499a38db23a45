package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintCommand: `quire lint` on a vault where an original was deleted
// names the defect and exits 1; --json prints the result; with the
// original back it finds nothing and exits 0.
func TestLintCommand(t *testing.T) {
	vault := t.TempDir()
	clip := filepath.Join(t.TempDir(), "rye.txt")
	os.WriteFile(clip, []byte("Rye is sown in autumn as a cover crop and cut in spring.\n"), 0o644)
	if out, err := runCLI(t, "ingest", "--vault", vault, clip); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	raws, _ := filepath.Glob(filepath.Join(vault, "Quire", "raw", "*"))
	if len(raws) != 1 {
		t.Fatalf("originals: %v", raws)
	}
	original, _ := os.ReadFile(raws[0])
	os.Remove(raws[0])

	out, err := runCLI(t, "lint", "--vault", vault)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(out, "missing-raw  Quire/Sources/") || !strings.Contains(out, "Report: Quire/Lint.md") {
		t.Fatalf("lint: %v\n%s", err, out)
	}
	out, _ = runCLI(t, "lint", "--vault", vault, "--json", "--dry-run")
	var res struct {
		Notes   int `json:"notes"`
		Defects []struct {
			Check, Note, Review string
		} `json:"defects"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Defects) != 1 || res.Defects[0].Check != "missing-raw" || res.Defects[0].Review == "" {
		t.Fatalf("lint --json: %v\n%s", err, out)
	}

	os.WriteFile(raws[0], original, 0o644)
	if out, err := runCLI(t, "lint", "--vault", vault); err != nil || !strings.Contains(out, "0 to look at") {
		t.Errorf("lint after the original is back: %v\n%s", err, out)
	}
}
