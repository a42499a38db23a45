package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSourcesCommand lists the vault and a folder source with what the
// index holds of each, as text and as JSON, and prints the folder
// source's table of contents.
func TestSourcesCommand(t *testing.T) {
	v := writeVault(t)
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "plan.md"), []byte("---\ntags: [q1]\n---\n# Plan\n\n## Beta\n\nShip the beta in March.\n"), 0o644)
	os.MkdirAll(filepath.Join(v, ".quire"), 0o755)
	os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte("dense:\n  embedder: none\nsources:\n  folders:\n    work:\n      paths: [\""+work+"\"]\n"), 0o644)
	if _, err := runCLI(t, "index", "--vault", v); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "sources", "--vault", v, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		ID, Kind        string
		Notes, Passages int
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if len(list) != 2 || list[0].ID != "vault" || list[0].Notes != 2 || list[1].ID != "work" || list[1].Kind != "folder" || list[1].Notes != 1 || list[1].Passages == 0 {
		t.Errorf("sources --json = %+v", list)
	}
	if out, err := runCLI(t, "sources", "--vault", v); err != nil || !strings.Contains(out, "work (folder) "+work) {
		t.Errorf("sources = %q, %v", out, err)
	}
	out, err = runCLI(t, "toc", "--vault", v, "--source", "work")
	if err != nil || !strings.Contains(out, "- plan.md — Plan #q1") || !strings.Contains(out, "Beta") {
		t.Errorf("toc = %q, %v", out, err)
	}

	// While a sidecar holds the index, both ask it: a note added to the
	// folder is there after sources --sync, which the sidecar runs.
	st := filepath.Join(v, ".quire")
	c := startQuire(t, "serve", "--vault", v, "--port", "0")
	cl, _ := attachTo(t, c, st)
	waitIdle(t, cl, 20*time.Second)
	os.WriteFile(filepath.Join(work, "retro.md"), []byte("# Retro\n\n## Gamma\n\nWhat the beta taught us.\n"), 0o644)
	out, err = runCLI(t, "sources", "--vault", v, "--json", "--sync")
	if err != nil {
		t.Fatalf("sources --sync with a sidecar running: %v", err)
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if len(list) != 2 || list[1].ID != "work" || list[1].Notes != 2 {
		t.Errorf("sources --json --sync through the sidecar = %+v; want work's 2 notes", list)
	}
	out, err = runCLI(t, "toc", "--vault", v, "--source", "work")
	if err != nil || !strings.Contains(out, "- retro.md — Retro") || !strings.Contains(out, "Gamma") {
		t.Errorf("toc through the sidecar = %q, %v", out, err)
	}
}
