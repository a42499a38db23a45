package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestGrepCommand: `quire grep` prints ripgrep's path:line:text with
// context lines and separators, --json the result, exits 1 when no line
// matches and 2 for a bad pattern; it writes nothing into the vault.
func TestGrepCommand(t *testing.T) {
	vault := t.TempDir()
	for rel, text := range map[string]string{
		"Ops/hosts.md":       "# Hosts\n\n- printer 10.0.0.12\n- router 10.0.0.1\n\nnothing\nhere\n- nas 10.0.0.120\n",
		".obsidian/notes.md": "10.0.0.12\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(vault, rel)), 0o755)
		os.WriteFile(filepath.Join(vault, rel), []byte(text), 0o644)
	}
	out, err := runCLI(t, "grep", "--vault", vault, "10.0.0.12")
	if want := "Ops/hosts.md:3:- printer 10.0.0.12\nOps/hosts.md:8:- nas 10.0.0.120\n"; err != nil || out != want {
		t.Errorf("grep: %v\n%q, want %q", err, out, want)
	}
	out, err = runCLI(t, "grep", "--vault", vault, "--regex", "--context", "1", `10\.0\.0\.1\d*$`)
	want := "Ops/hosts.md-2-\nOps/hosts.md:3:- printer 10.0.0.12\nOps/hosts.md:4:- router 10.0.0.1\nOps/hosts.md-5-\n--\n" +
		"Ops/hosts.md-7-here\nOps/hosts.md:8:- nas 10.0.0.120\n"
	if err != nil || out != want {
		t.Errorf("grep --regex --context 1: %v\n%q, want %q", err, out, want)
	}
	out, err = runCLI(t, "grep", "--vault", vault, "--json", "ROUTER", "--case", "ignore")
	if err != nil {
		t.Fatalf("grep --json: %v", err)
	}
	var res struct {
		Matches []struct {
			Source, Path, Text string
			Line               int
			Spans              [][2]int
		}
		Files int
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Matches) != 1 || res.Files != 1 ||
		res.Matches[0].Source != "vault" || res.Matches[0].Line != 4 || res.Matches[0].Spans[0] != [2]int{2, 8} {
		t.Errorf("grep --json: %v\n%s", err, out)
	}
	var ee *exitError
	if _, err := runCLI(t, "grep", "--vault", vault, "absent"); !errors.As(err, &ee) || ee.code != 1 {
		t.Errorf("no match: %v, want exit 1", err)
	}
	if _, err := runCLI(t, "grep", "--vault", vault, "--regex", "a("); !errors.As(err, &ee) || ee.code != 2 {
		t.Errorf("bad pattern: %v, want exit 2", err)
	}
	if entries, _ := os.ReadDir(vault); len(entries) != 2 {
		t.Errorf("the vault holds %d entries after grep, want its 2 (no .quire)", len(entries))
	}
}
