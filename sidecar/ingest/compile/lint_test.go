package compile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/ingest/raw"
)

// wikiSource is a text source and what the fake model plans for it.
type wikiSource struct {
	text     string // first line is the title
	concepts []concept
	entities []entity
}

// wikiModel answers for the sources by their title: the concepts and
// entities each names (which its text holds, so the checks keep them).
func wikiModel(t testing.TB, srcs []wikiSource) Model {
	t.Helper()
	byTitle := map[string]wikiSource{}
	for _, s := range srcs {
		title, _, _ := strings.Cut(s.text, "\n")
		byTitle[title] = s
	}
	m, _ := newModel(t, fake{
		read: func(user string) notes { return notes{Points: []string{"A point."}} },
		plan: func(user string) plan {
			for title, s := range byTitle {
				if strings.Contains(user, "title: "+title+"\n") {
					return plan{Title: title, OneLiner: "About " + title + ".", Summary: "A summary of " + title + ".",
						Concepts: s.concepts, Entities: s.entities}
				}
			}
			return plan{Summary: "Unknown source."}
		},
	}, 0)
	return m
}

// ingestWiki compiles each source as the worker does: the original saved
// under Quire/raw, then the notes, with the model given. It returns the
// source notes' vault paths.
func ingestWiki(t testing.TB, vault string, model Model, srcs []wikiSource) []string {
	t.Helper()
	var notes []string
	for i, s := range srcs {
		title, _, _ := strings.Cut(s.text, "\n")
		name := noteName(title) + ".txt"
		doc, err := extract.Text([]byte(s.text), name, "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		if err := Adopt(vault, "Quire"); err != nil {
			t.Fatal(err)
		}
		rawPath, err := raw.Save(vault, "Quire/raw", name, []byte(s.text))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compile(context.Background(), Source{Doc: doc, Origin: "https://wiki.example/" + itoa(i), Raw: rawPath,
			Captured: time.Date(2026, 3, 1+i, 9, 0, 0, 0, time.UTC)},
			Options{Vault: vault, Folder: "Quire", Model: model, Exists: func(string) bool { return false }})
		if err != nil {
			t.Fatal(err)
		}
		notes = append(notes, res.Note)
	}
	return notes
}

// hashes maps every file of the vault (dot folders aside) to its hash.
func hashes(t testing.TB, vault string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(vault, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if d.IsDir() || strings.Contains(p, string(filepath.Separator)+".") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(vault, p)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	return out
}

var lintSources = []wikiSource{
	{text: "Sourdough basics\n\nFermentation turns flour and water into a starter. Bakers call the starter a levain.",
		concepts: []concept{{Name: "Fermentation", Description: "What yeasts do."}, {Name: "levain", Description: "A starter."}}},
	{text: "Crop rotation notes\n\nCrop rotation keeps soil healthy over the seasons.",
		concepts: []concept{{Name: "Crop rotation", Description: "Changing crops each season."}}},
	{text: "Café culture in Vienna\n\nCafé culture grew in Vienna around coffee houses.",
		concepts: []concept{{Name: "Café culture", Description: "Life in coffee houses."}}},
	{text: "Cafe Culture abroad\n\nCafe Culture spread from Vienna to other cities.",
		concepts: []concept{{Name: "Cafe Culture", Description: "The same habit elsewhere."}}},
	{text: "Language tools\n\nNatural Language Processing lets programs read text.",
		concepts: []concept{{Name: "Natural Language Processing", Description: "Programs that read text."}}},
	{text: "Herramientas de lenguaje\n\nEl PLN permite a los programas leer texto. " + strings.Repeat("El PLN analiza frases y palabras. ", 120),
		concepts: []concept{{Name: "PLN", Description: strings.Repeat("El PLN analiza frases y palabras. ", 120)}}},
}

// TestLintFindsEachDefect: a vault of ingested sources where the user
// renamed a concept page, deleted a source note and an original, broke a
// note's frontmatter, and two pairs of concept pages name one thing; lint
// finds and names each, writes Lint.md and review items, and changes
// nothing else (hashes before and after); a second run writes nothing new.
func TestLintFindsEachDefect(t *testing.T) {
	vault := t.TempDir()
	writeVault(t, vault, map[string]string{"Notes/Bread baking.md": "# Bread baking\n\nSee [[Nowhere]].\n"})
	notes := ingestWiki(t, vault, wikiModel(t, lintSources), lintSources)

	// The user renames a concept page: the source note's link to it breaks.
	os.Rename(filepath.Join(vault, "Quire/Concepts/Fermentation.md"), filepath.Join(vault, "Quire/Concepts/Ferment.md"))
	// … deletes a source note: its concept page is cited by none, and
	// index.md lists a note that is gone.
	os.Remove(filepath.Join(vault, filepath.FromSlash(notes[1])))
	// … deletes an original.
	raws, _ := filepath.Glob(filepath.Join(vault, "Quire/raw/Language tools*"))
	if len(raws) != 1 {
		t.Fatalf("originals: %v", raws)
	}
	os.Remove(raws[0])
	// … breaks a note's frontmatter.
	cafe := filepath.Join(vault, filepath.FromSlash(notes[2]))
	b, _ := os.ReadFile(cafe)
	os.WriteFile(cafe, []byte(strings.Replace(string(b), "tags: []", "tags: [oops", 1)), 0o644)

	// … and a note is of an older layout (a release later changed it).
	olderLayout(t, vault, notes[0])

	before := hashes(t, vault)
	res, err := Lint(LintOptions{Vault: vault, Folder: "Quire", MaxTokens: 400, Write: true,
		Now: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ check, note, target string }{
		{LintLink, "Quire/Sources/Sourdough basics.md", "Quire/Concepts/Fermentation"},
		{LintLink, "Quire/Concepts/Crop rotation.md", "Quire/Sources/Crop rotation notes"},
		{LintLink, "Quire/index.md", "Quire/Sources/Crop rotation notes"},
		{LintOrphan, "Quire/Concepts/Crop rotation.md", ""},
		{LintDuplicate, "Quire/Concepts/Café culture.md", "Quire/Concepts/Cafe Culture.md"},
		{LintDuplicate, "Quire/Concepts/Natural Language Processing.md", "Quire/Concepts/PLN.md"},
		{LintRaw, "Quire/Sources/Language tools.md", ""},
		{LintFront, "Quire/Sources/Café culture in Vienna.md", ""},
		{LintIndex, "Quire/index.md", ""},
		{LintSize, "Quire/Concepts/PLN.md", ""},
		{LintLayout, notes[0], ""},
	}
	found := func(check, note, target string) bool {
		for _, d := range res.Defects {
			if d.Check == check && (d.Note == note && (target == "" || d.Target == target) ||
				check == LintDuplicate && d.Note == target && d.Target == note) {
				return true
			}
		}
		return false
	}
	for _, w := range want {
		if !found(w.check, w.note, w.target) {
			t.Errorf("no %s defect for %s %s", w.check, w.note, w.target)
		}
	}
	for _, d := range res.Defects {
		if d.Detail == "" {
			t.Errorf("defect without a sentence: %+v", d)
		}
	}
	if len(res.Defects) != len(want) {
		js, _ := json.MarshalIndent(res.Defects, "", "  ")
		t.Errorf("got %d defects, want %d:\n%s", len(res.Defects), len(want), js)
	}

	// Nothing that was there changed; what is new is the report and the
	// review items, each of them sealed.
	after := hashes(t, vault)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
	for p := range after {
		if before[p] != "" {
			continue
		}
		if p != "Quire/Lint.md" && !strings.HasPrefix(p, "Quire/Review/Lint — ") {
			t.Errorf("lint wrote %s", p)
		}
		if _, sealed := ours([]byte(readFile(t, vault, p))); !sealed {
			t.Errorf("%s is not sealed", p)
		}
	}
	if res.Report != "Quire/Lint.md" || len(res.Review) != 8 {
		t.Errorf("report %q, review items %v; want Quire/Lint.md and 8 (links, orphan, duplicates, original, frontmatter)", res.Report, res.Review)
	}
	report := readFile(t, vault, "Quire/Lint.md")
	for _, s := range []string{"quire_kind: lint", "## Links that no longer resolve", "## Pages no source cites", "## Pages that name the same thing",
		"## Originals missing from raw", "## Frontmatter Quire cannot read", "## index.md out of step", "## Pages too long for a model",
		"## Source notes in an older layout", "Checked 13 notes on 2026-04-01: 11 to look at"} {
		if !strings.Contains(report, s) {
			t.Errorf("report lacks %q:\n%s", s, report)
		}
	}
	// The report links only what exists.
	files, _ := vaultFiles(vault)
	for _, target := range linkTargets(report) {
		if !files[strings.ToLower(target)] {
			t.Errorf("report links %q, which is no file", target)
		}
	}
	review := readFile(t, vault, res.Review[0])
	if !strings.Contains(review, "quire_kind: review") || !strings.Contains(review, "quire_lint: ") || !strings.Contains(review, "about: ") {
		t.Errorf("review item:\n%s", review)
	}

	// Again: the same findings, no new file, nothing rewritten.
	again, err := Lint(LintOptions{Vault: vault, Folder: "Quire", MaxTokens: 400, Write: true,
		Now: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Review) != 0 || len(again.Defects) != len(res.Defects) {
		t.Errorf("second run: review %v, %d defects", again.Review, len(again.Defects))
	}
	for p, h := range hashes(t, vault) {
		if after[p] != h {
			t.Errorf("second run changed %s", p)
		}
	}
}

// TestLintLeavesEditedReport: a Lint.md the user wrote in is not
// rewritten, and the result says why.
func TestLintLeavesEditedReport(t *testing.T) {
	vault := t.TempDir()
	ingestWiki(t, vault, wikiModel(t, lintSources[:1]), lintSources[:1])
	if _, err := Lint(LintOptions{Vault: vault, Folder: "Quire", Write: true}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(vault, "Quire", LintNote)
	b, _ := os.ReadFile(p)
	edited := string(b) + "\nMy own remark.\n"
	os.WriteFile(p, []byte(edited), 0o644)
	os.Remove(filepath.Join(vault, "Quire/Concepts/levain.md"))
	res, err := Lint(LintOptions{Vault: vault, Folder: "Quire", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != "" || !strings.Contains(res.Warning, "Lint.md was edited") || len(res.Defects) != 1 {
		t.Errorf("got report %q, warning %q, defects %+v", res.Report, res.Warning, res.Defects)
	}
	if readFile(t, vault, "Quire/"+LintNote) != edited {
		t.Error("the edited report was rewritten")
	}
}

// TestLintRefusesForeignFolder: lint never writes into a folder of the
// user's notes.
func TestLintRefusesForeignFolder(t *testing.T) {
	vault := t.TempDir()
	writeVault(t, vault, map[string]string{"Kitchen/Sources/bread.md": "# Bread\n\n[[Gone]]\n"})
	before := hashes(t, vault)
	var fe *ForeignError
	if _, err := Lint(LintOptions{Vault: vault, Folder: "Kitchen", Write: true}); !errors.As(err, &fe) {
		t.Fatalf("got %v, want a ForeignError", err)
	}
	if got := hashes(t, vault); len(got) != len(before) {
		t.Errorf("files: %v", got)
	}
}

// TestLintPrivateNotNamed: a defect of a private note is counted in
// Lint.md, not named, and its review item is marked private.
func TestLintPrivateNotNamed(t *testing.T) {
	vault := t.TempDir()
	ingestWiki(t, vault, wikiModel(t, lintSources[:1]), lintSources[:1])
	src := filepath.Join(vault, "Quire/Sources/Sourdough basics.md")
	b, _ := os.ReadFile(src)
	os.WriteFile(src, regexp.MustCompile(`(?m)^summarised:`).ReplaceAll(b, []byte("private: true\nsummarised:")), 0o644)
	os.Rename(filepath.Join(vault, "Quire/Concepts/levain.md"), filepath.Join(vault, "Quire/Concepts/starter.md"))
	res, err := Lint(LintOptions{Vault: vault, Folder: "Quire", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	report := readFile(t, vault, "Quire/"+LintNote)
	if strings.Contains(report, "Sourdough basics") || !strings.Contains(report, "1 in private notes") {
		t.Errorf("report names the private note:\n%s", report)
	}
	if len(res.Review) != 1 || !strings.Contains(readFile(t, vault, res.Review[0]), "private: true") {
		t.Errorf("review %v: want one item marked private", res.Review)
	}
}
