package compile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/ingest/extract"
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
	if _, sealed := ours([]byte(log)); !sealed || !strings.HasPrefix(log, "---\nquire: generated\nquire_kind: log\n") || strings.Count(log, "saved unsummarised") != 2 {
		t.Errorf("Quire's own log:\n%s", log)
	}
}

// TestCompileMendsItsLog: a log.md of Quire's that an older version wrote
// NULs into (a UTF-16 title) is cleaned on the next append, not left
// unindexable for good; a note that would still hold one is refused.
func TestCompileMendsItsLog(t *testing.T) {
	dir := t.TempDir()
	broken := "---\nquire: generated\nquire_kind: log\n---\n" + logIntro + "- 2026-01-01T00:00:00Z · saved unsummarised [[Quire/Sources/R\x00y\x00e|R\x00y\x00e]] %%quire:abc saved-unsummarised%%\n"
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

// TestLongSourceNoteCapped: the clean text of a source far larger than
// max_file_bytes is cut so the note stays under it, and the note says what
// was left out and where the whole text is.
func TestLongSourceNoteCapped(t *testing.T) {
	dir := t.TempDir()
	var md strings.Builder
	for i := 0; md.Len() < 600<<10; i++ {
		fmt.Fprintf(&md, "Paragraph %d of a very long log, with words enough to fill a line or two of text. čeština\n\n", i)
	}
	doc := &extract.Doc{Title: "Long log", Markdown: md.String(), Text: md.String()}
	const limit = 100 << 10
	res, err := Compile(context.Background(), source(doc, "/tmp/long.txt"), Options{Vault: dir, Folder: "Quire", MaxNoteBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	note, err := vault.Read(dir, res.Note, limit)
	if err != nil {
		t.Fatalf("the indexer skips the note: %v", err)
	}
	body := string(note.Raw)
	if !strings.Contains(body, "> [!note] Text shortened\n> The source's text is 601 KB; this note keeps the first 99 KB, so that Quire can index it.") ||
		!strings.Contains(body, "The whole text is in the [[Quire/raw/page.html|original]].") {
		t.Errorf("the note does not say it was cut:\n%.1500s", body)
	}
	if !strings.Contains(body, "Paragraph 0 of a very long log") || !strings.HasSuffix(body, "čeština\n") {
		t.Errorf("the note does not keep the text's start, cut at a paragraph:\n…%s", body[len(body)-300:])
	}
}

// TestOwnershipByProofOnly: a folder of the user's that holds a note
// saying it is Quire's (an old answer moved there, a source note with the
// mark but not Quire's bytes) is not adopted, and nothing there moves;
// Quire's own record (OwnerFile) or a page whose hash matches is proof.
func TestOwnershipByProofOnly(t *testing.T) {
	sealed, err := seal(pageFront{Quire: Marker, Kind: "concept", Title: "Rye"}, "\n# Rye\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		owned bool
	}{
		{"an answer moved in", map[string]string{"Kitchen/Answers/Old.md": "---\nquire: answer\nquestion: x\n---\n# x\n"}, false},
		{"a claimed source note", map[string]string{"Kitchen/Sources/Bread.md": "---\nquire: generated\nquire_kind: source\nquire_hash: " + strings.Repeat("0", 64) + "\n---\n# Bread\n"}, false},
		{"a claimed log", map[string]string{"Kitchen/log.md": logIntro + "- what I cooked\n"}, false},
		{"a sealed page", map[string]string{"Kitchen/Concepts/Rye.md": string(sealed)}, true},
		{"Quire's record", map[string]string{"Kitchen/" + OwnerFile: "Quire writes its notes in this folder.\n"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vault := t.TempDir()
			files := map[string]string{"Kitchen/Inbox/recipe.md": "# Bread\n", "Kitchen/Shopping.md": "# Flour\n"}
			for p, b := range tc.files {
				files[p] = b
			}
			writeVault(t, vault, files)
			err := Adopt(vault, "Kitchen")
			var fe *ForeignError
			if tc.owned != (err == nil) || !tc.owned && !errors.As(err, &fe) {
				t.Fatalf("Adopt: %v, want owned %v", err, tc.owned)
			}
			if !tc.owned {
				if _, err := os.Stat(filepath.Join(vault, "Kitchen", OwnerFile)); err == nil {
					t.Error("the user's folder was marked as Quire's")
				}
			}
		})
	}
}
