package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// TestBenchCommand: quire bench reads a file with two models of the fake
// server and prints a row each, in the table and in --json; the vault is
// left as it was.
func TestBenchCommand(t *testing.T) {
	fake := &cropFake{}
	srv := llmtest.New(t)
	srv.SetResponder(fake.reply)
	v := t.TempDir()
	os.MkdirAll(filepath.Join(v, ".quire"), 0o755)
	os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte("dense:\n  embedder: none\nmodel:\n  provider: ollama\n  endpoint: "+srv.URL+"\n  model: fake\n"), 0o644)
	clip := filepath.Join(t.TempDir(), "field.txt")
	os.WriteFile(clip, []byte("Field 04\n\nA cover crop such as rye protects the soil of field 4 over winter. Green manure feeds it.\n"), 0o644)

	out, err := runCLI(t, "bench", "--vault", v, "--models", "small,large", clip)
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "small ") || !strings.HasPrefix(lines[2], "large ") || !strings.Contains(lines[1], "field.txt") {
		t.Errorf("table:\n%s", out)
	}
	out, err = runCLI(t, "bench", "--vault", v, "--json", clip)
	var rows []engine.BenchRow
	if err != nil || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0].Model != "fake" || rows[0].FirstTry != rows[0].Calls || rows[0].Calls == 0 {
		t.Errorf("--json: %v\n%s", err, out)
	}
	if ents, _ := os.ReadDir(v); len(ents) != 1 {
		t.Errorf("bench wrote into the vault: %v", ents)
	}
}
