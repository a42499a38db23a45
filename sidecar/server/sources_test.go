package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/config"
)

// gitRepo makes a real git repository at dir holding files, committed.
func gitRepo(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for p, body := range files {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "notes"}} {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.org", "-c", "user.name=t"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestSourceNotes: a git source's note over the wire. note.get with a
// source reads it at the revision indexed and names the source and
// revision (a vault note of the same path is not what comes back);
// sources.list lists the source; toc.get gives its table of contents;
// related rows carry their source apart from the path; an MCP client
// gets no private source note.
func TestSourceNotes(t *testing.T) {
	clone := filepath.Join(t.TempDir(), "ops")
	gitRepo(t, clone, map[string]string{
		"runbooks/deploy.md": "# Deploy\n\n## Rollback\n\nRoll the sourdough pods back one by one.\n",
		"secrets/keys.md":    "# Keys\n\nThe sourdough token rotates monthly.\n",
	})
	files := map[string]string{"runbooks/deploy.md": "# Vault deploy\n\nThe vault's own note of the same path.\n"}
	for p, b := range notes {
		files[p] = b
	}
	h := start(t, files, func(s *setup) {
		s.Config.Sources = config.Sources{Git: map[string]config.GitSource{"ops": {Path: clone}}}
		s.Config.Private = []string{"ops:secrets/"}
	})
	c := h.dial()

	res, err := call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Source: "ops", Path: "runbooks/deploy.md"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != "ops" || res.Path != "runbooks/deploy.md" || len(res.Revision) != 40 || !strings.Contains(res.Text, "Rollback") {
		t.Errorf("note.get ops runbooks/deploy.md = %+v", res)
	}
	if res, err := call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Path: "runbooks/deploy.md"}); err != nil || res.Source != "vault" || res.Revision != "" || !strings.Contains(res.Text, "Vault deploy") {
		t.Errorf("note.get of the vault's runbooks/deploy.md = %+v, %v", res, err)
	}
	// A key as the path, as MCP's client of a running sidecar sends it.
	if res, err := call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Path: "ops:runbooks/deploy.md"}); err != nil || res.Source != "ops" || res.Path != "runbooks/deploy.md" {
		t.Errorf("note.get ops:runbooks/deploy.md = %+v, %v", res, err)
	}
	if _, err := call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Source: "vault", Path: "ops:runbooks/deploy.md"}); err == nil {
		t.Error("note.get of the vault read another source's note by its key")
	}
	if _, err := call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Source: "ops", Path: "secrets/keys.md", MCP: true}); err == nil {
		t.Error("note.get gave an MCP client the private ops:secrets/keys.md")
	}
	if _, err := call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Source: "ops", Path: "../ops/runbooks/deploy.md"}); err == nil {
		t.Error("note.get read a path with ..")
	}
	if _, err := call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Source: "Bad Id", Path: "runbooks/deploy.md"}); err == nil {
		t.Error("note.get took a source id that is no id")
	}

	list, err := call[proto.SourcesResult](t, c, proto.TypeSourcesList, proto.SourcesList{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sources) != 2 || list.Sources[0].ID != "vault" || list.Sources[1].ID != "ops" || list.Sources[1].Kind != "git" ||
		list.Sources[1].Notes != 2 || list.Sources[1].Revision != res.Revision {
		t.Errorf("sources.list = %+v", list)
	}

	toc, err := call[proto.TOCResult](t, c, proto.TypeTOCGet, proto.TOCGet{Source: "ops", MCP: true})
	if err != nil {
		t.Fatal(err)
	}
	if toc.Source != "ops" || toc.Revision != res.Revision || toc.Withheld != 1 || len(toc.Folders) != 1 || toc.Folders[0].Folder != "runbooks" {
		t.Fatalf("toc.get ops for MCP = %+v", toc)
	}
	if n := toc.Folders[0].Notes[0]; n.Source != "ops" || n.Path != "runbooks/deploy.md" || n.Title != "Deploy" || len(n.Headings) != 2 || n.Headings[1] != (proto.TOCHeading{Depth: 2, Text: "Rollback"}) {
		t.Errorf("toc.get ops note = %+v", n)
	}
	if toc, err := call[proto.TOCResult](t, c, proto.TypeTOCGet, proto.TOCGet{}); err != nil || toc.Source != "vault" || len(toc.Folders) == 0 {
		t.Errorf("toc.get of the vault = %+v, %v", toc, err)
	}

	rel, err := call[proto.RelatedResult](t, c, proto.TypeRelatedQuery, proto.RelatedQuery{Text: "roll the sourdough pods back", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range rel.Notes {
		if strings.Contains(n.Path, ":") {
			t.Errorf("related row's path is a key: %+v", n)
		}
		if n.Source == "ops" && n.Path == "runbooks/deploy.md" {
			found = n.Passage.Source == "ops"
		}
		if n.Source == "" {
			t.Errorf("related row without its source: %+v", n)
		}
	}
	if !found {
		t.Errorf("related to the runbook's text: %+v; want ops runbooks/deploy.md", rel.Notes)
	}
}
