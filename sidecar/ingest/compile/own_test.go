package compile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/vault"
)

func writeVault(t *testing.T, vault string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(vault, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCompileRefusesFolderOfUserNotes: the generated folder pointed at a
// folder of the user's notes is refused, naming them, and nothing in it
// changes.
func TestCompileRefusesFolderOfUserNotes(t *testing.T) {
	vault := t.TempDir()
	user := map[string]string{
		"Kitchen/log.md":          "# What I cooked\n",
		"Kitchen/Inbox/recipe.md": "# Bread\n",
		"Kitchen/raw/flour.md":    "# Flour\n",
	}
	writeVault(t, vault, user)
	_, err := Compile(context.Background(), source(articleDoc(t), "https://crumb.example/a"), Options{Vault: vault, Folder: "Kitchen"})
	var fe *ForeignError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "Kitchen/log.md") || !strings.Contains(err.Error(), "Kitchen/raw/flour.md") {
		t.Fatalf("got %v, want a ForeignError naming the user's notes", err)
	}
	got := snapshot(t, vault, "Kitchen")
	if len(got) != len(user) {
		t.Errorf("the folder changed: %v", got)
	}
	for p, body := range user {
		if got[p] != body {
			t.Errorf("%s changed: %q", p, got[p])
		}
	}
	if _, err := os.Stat(filepath.Join(vault, "Kitchen", OwnerFile)); err == nil {
		t.Error("the user's folder was marked as Quire's")
	}
}

// TestCompileLeavesUserLog: a log.md Quire did not start is never
// appended to; the line goes to a review note.
func TestCompileLeavesUserLog(t *testing.T) {
	vault := t.TempDir()
	const mine = "# My log\n\nThings I did.\n"
	writeVault(t, vault, map[string]string{"Quire/log.md": mine, "Quire/" + OwnerFile: "x\n"})
	res, err := Compile(context.Background(), source(articleDoc(t), "https://crumb.example/a"), Options{Vault: vault, Folder: "Quire"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, vault, "Quire/log.md"); got != mine {
		t.Errorf("the user's log.md was changed:\n%s", got)
	}
	if len(res.Review) != 1 || !strings.Contains(res.Review[0], "log.md") {
		t.Errorf("review items: %v, want one about log.md", res.Review)
	}
	// A log Quire started is appended to, and carries its mark.
	vault2 := t.TempDir()
	for i, origin := range []string{"https://crumb.example/a", "https://crumb.example/b"} {
		doc := articleDoc(t)
		doc.Text += strings.Repeat(" more", i)
		if _, err := Compile(context.Background(), source(doc, origin), Options{Vault: vault2, Folder: "Quire"}); err != nil {
			t.Fatal(err)
		}
	}
	log := readFile(t, vault2, "Quire/log.md")
	if !strings.HasPrefix(log, "---\nquire: generated\nquire_kind: log\n---\n") || strings.Count(log, "saved unsummarised") != 2 {
		t.Errorf("Quire's own log:\n%s", log)
	}
}

// TestCompileMendsItsLog: a log.md of Quire's that an older version wrote
// NULs into (a UTF-16 title) is cleaned on the next append, not left
// unindexable for good; a note that would still hold one is refused.
func TestCompileMendsItsLog(t *testing.T) {
	dir := t.TempDir()
	broken := logHead + "- 2026-01-01T00:00:00Z · saved unsummarised [[Quire/Sources/R\x00y\x00e|R\x00y\x00e]] %%quire:abc saved-unsummarised%%\n"
	writeVault(t, dir, map[string]string{"Quire/log.md": broken, "Quire/" + OwnerFile: "x\n"})
	if _, err := Compile(context.Background(), source(articleDoc(t), "https://crumb.example/a"), Options{Vault: dir, Folder: "Quire"}); err != nil {
		t.Fatal(err)
	}
	log := readFile(t, dir, "Quire/log.md")
	if err := vault.CheckText([]byte(log)); err != nil || strings.ContainsRune(log, 0) || !strings.Contains(log, "[[Quire/Sources/Rye|Rye]]") {
		t.Errorf("log.md not mended (%v):\n%q", err, log)
	}
	f, err := openFolder(dir, "Quire")
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	if err := f.write("x.md", []byte("a\x00b"), true); !errors.Is(err, vault.ErrBinary) {
		t.Errorf("writing a NUL: %v, want %v", err, vault.ErrBinary)
	}
}
