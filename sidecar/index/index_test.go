package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/bm25"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/state"
)

type fixture struct {
	t     *testing.T
	vault string
	st    *state.Dir
	ix    *Index
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	f := &fixture{t: t, vault: t.TempDir()}
	for p, body := range files {
		f.write(p, body)
	}
	f.open()
	t.Cleanup(f.close)
	return f
}

func (f *fixture) open() { f.openWith(config.Default()) }

// openWith opens the index with cfg; close it first.
func (f *fixture) openWith(cfg config.Config) {
	st, err := state.Open(filepath.Join(f.vault, ".quire"))
	if err != nil {
		f.t.Fatal(err)
	}
	ix, err := Open(f.vault, st, cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.st, f.ix = st, ix
}

func (f *fixture) close() {
	if f.ix != nil {
		f.ix.Close()
		f.st.Close()
		f.ix = nil
	}
}

var tick = time.Now().Add(-time.Hour)

// write writes a note and gives it a fresh mtime, so that a quick edit is
// never hidden by a coarse file-system clock.
func (f *fixture) write(rel, body string) {
	f.t.Helper()
	p := filepath.Join(f.vault, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
	tick = tick.Add(time.Second)
	if err := os.Chtimes(p, tick, tick); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) run() Stats {
	f.t.Helper()
	st, err := f.ix.Run(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

func (f *fixture) search(q string) []bm25.Hit {
	f.t.Helper()
	hits, err := f.ix.BM25.Search(context.Background(), q, 10)
	if err != nil {
		f.t.Fatalf("search %q: %v", q, err)
	}
	return hits
}

func paths(hits []bm25.Hit) string {
	var ps []string
	for _, h := range hits {
		ps = append(ps, h.Path)
	}
	return strings.Join(ps, ",")
}

var basic = map[string]string{
	"cheese/brie.md":    "---\ntitle: Brie\nlang: en\n---\n# Brie\n\nBrie is a soft cow's-milk cheese named after the French region of Brie.\n",
	"cheese/rennet.md":  "# Rennet\n\nRennet is a complex set of enzymes produced in the stomachs of ruminant mammals.\n",
	"coffee/moka.md":    "# Moka pot\n\nThe moka pot is a stove-top coffee maker that brews coffee by passing boiling water pressurized by steam.\n",
	".obsidian/skip.md": "never indexed: zanzibar",
}

func TestIncrementalRuns(t *testing.T) {
	f := newFixture(t, basic)
	if st := f.run(); st.Changed != 3 || st.Notes != 3 {
		t.Fatalf("first run: %+v, want 3 changed, 3 notes", st)
	}
	if got := paths(f.search("zanzibar")); got != "" {
		t.Errorf("dot-folder note was indexed: %s", got)
	}

	if st := f.run(); st.Changed != 0 || st.Removed != 0 {
		t.Fatalf("no-op run: %+v, want nothing changed", st)
	}

	// Touched with the same bytes: the hash says unchanged.
	p := filepath.Join(f.vault, "cheese", "brie.md")
	later := time.Now()
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if st := f.run(); st.Changed != 0 {
		t.Fatalf("touch: %+v, want 0 changed", st)
	}
	if st := f.run(); st.Changed != 0 {
		t.Fatalf("after touch, catalog mtime not updated: %+v", st)
	}

	f.write("cheese/rennet.md", "# Rennet\n\nChymosin curdles the casein in milk.\n")
	if st := f.run(); st.Changed != 1 {
		t.Fatalf("edit: %+v, want 1 changed", st)
	}
	if got := paths(f.search("chymosin")); got != "cheese/rennet.md" {
		t.Errorf("new text: got %q", got)
	}
	if got := paths(f.search("ruminant")); got != "" {
		t.Errorf("old text still found in %q", got)
	}

	if err := os.Rename(filepath.Join(f.vault, "coffee", "moka.md"), filepath.Join(f.vault, "coffee", "bialetti.md")); err != nil {
		t.Fatal(err)
	}
	if st := f.run(); st.Changed != 1 || st.Removed != 1 || st.Notes != 3 {
		t.Fatalf("rename: %+v, want 1 changed 1 removed 3 notes", st)
	}
	if got := paths(f.search("stove-top")); got != "coffee/bialetti.md" {
		t.Errorf("renamed note: got %q", got)
	}

	if err := os.Remove(filepath.Join(f.vault, "coffee", "bialetti.md")); err != nil {
		t.Fatal(err)
	}
	if st := f.run(); st.Removed != 1 || st.Notes != 2 {
		t.Fatalf("delete: %+v", st)
	}
	if got := paths(f.search("stove-top")); got != "" {
		t.Errorf("deleted note still found: %q", got)
	}
}

func TestRestartDoesNoWork(t *testing.T) {
	f := newFixture(t, basic)
	f.run()
	f.close()
	f.open()
	if st := f.run(); st.Changed != 0 || st.Notes != 3 {
		t.Fatalf("restart: %+v, want no notes changed and 3 held", st)
	}
}

func TestEmptyOrMissingVaultLeavesIndexAlone(t *testing.T) {
	f := newFixture(t, basic)
	f.run()
	before, _ := f.ix.BM25.Count()

	// Every note gone (a sync tool mid-way, an unmounted drive).
	for p := range basic {
		os.Remove(filepath.Join(f.vault, filepath.FromSlash(p)))
	}
	if _, err := f.ix.Run(context.Background()); !errors.Is(err, ErrVaultGone) {
		t.Fatalf("empty vault: err = %v, want ErrVaultGone", err)
	}
	// The vault folder itself gone.
	f.ix.Vault = filepath.Join(f.vault, "unmounted")
	if _, err := f.ix.Run(context.Background()); !errors.Is(err, ErrVaultGone) {
		t.Fatalf("missing vault: err = %v, want ErrVaultGone", err)
	}
	after, _ := f.ix.BM25.Count()
	if after != before || paths(f.search("brie")) != "cheese/brie.md" {
		t.Errorf("index changed: %d passages before, %d after", before, after)
	}
}

func TestBadFilesAreSkippedAndNamed(t *testing.T) {
	f := newFixture(t, map[string]string{
		"good.md":        "# Good\n\nfine words here\n",
		"binary.md":      "\x89PNG\r\n\x1a\n\x00\x00\x00",
		"latin1.md":      "caf\xe9 cr\xe8me",
		"broken-yaml.md": "---\ntitle: [oops\n---\n# Kept\n\nbody survives breakage\n",
	})
	st := f.run()
	reasons := map[string]string{}
	for _, s := range st.Skipped {
		reasons[s.Path] = s.Reason
	}
	if !strings.Contains(reasons["binary.md"], "binary") || !strings.Contains(reasons["latin1.md"], "UTF-8") || len(reasons) != 2 {
		t.Errorf("skipped = %v, want binary.md and latin1.md named", reasons)
	}
	if got := paths(f.search("breakage")); got != "broken-yaml.md" {
		t.Errorf("note with broken frontmatter: got %q, want it indexed", got)
	}
	if len(st.Warnings) != 1 || st.Warnings[0].Path != "broken-yaml.md" {
		t.Errorf("warnings = %+v, want broken-yaml.md", st.Warnings)
	}
	// A good note that turns binary leaves the index.
	f.write("good.md", "\x00\x01\x02")
	st = f.run()
	if got := paths(f.search("fine")); got != "" {
		t.Errorf("note that became binary still found: %q", got)
	}
	if st.Notes != 1 {
		t.Errorf("notes = %d, want 1", st.Notes)
	}
}

func TestPassageTextIsTheExactByteRange(t *testing.T) {
	long := "---\ntitle: Long\n---\n# Long\n\n" + strings.Repeat("Sailing upwind needs a keel and trimmed sails. ", 120) + "\n\n## Rig\n\n```\ncode block\n```\n"
	f := newFixture(t, map[string]string{"long.md": long, "bom.md": "\xef\xbb\xbf# Bom\n\nByte order marks and keels.\n"})
	f.run()
	hits, err := f.ix.BM25.Search(context.Background(), "keel", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 3 {
		t.Fatalf("got %d hits, want the long note windowed", len(hits))
	}
	for _, h := range hits {
		raw, _ := os.ReadFile(filepath.Join(f.vault, h.Path))
		if h.Start < 0 || h.End > len(raw) || string(raw[h.Start:h.End]) != h.Text {
			t.Errorf("%s [%d,%d): text does not equal the raw slice", h.ID, h.Start, h.End)
		}
		if strings.Contains(h.Text, "title: Long") {
			t.Errorf("%s: frontmatter in a passage", h.ID)
		}
	}
}

func TestQueriesAreNeverSyntax(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "# Title\n\ntitle foo bar and rennet: the enzyme (chymosin) +plus -minus\n"})
	f.run()
	for _, q := range []string{
		`title:foo`, `"unclosed`, `+rennet -enzyme`, `chymosin*`, `[brackets]`, `(parens`, `a:b:c`,
		`\`, `~fuzzy^2`, `AND OR NOT`, `/regex/`, `{curly}`, `*`, `:`, `"`, `   `, `\u0000`,
	} {
		if _, err := f.ix.BM25.Search(context.Background(), q, 5); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
	if got := paths(f.search(`title:foo`)); got != "a.md" {
		t.Errorf("`title:foo` should search the words title and foo, got %q", got)
	}
}

// A run killed after writing the keyword index but before the catalog
// leaves passages the catalog does not know; the next run removes them.
func TestStrayPassagesAfterACrashAreRemoved(t *testing.T) {
	f := newFixture(t, basic)
	f.run()
	err := f.ix.BM25.Replace(nil, []bm25.Doc{{ID: "ghost.md#0", Path: "ghost.md", Lang: "en", Body: "phantom passage", Text: "phantom passage"}})
	if err != nil {
		t.Fatal(err)
	}
	if paths(f.search("phantom")) != "ghost.md" {
		t.Fatal("setup: stray passage not indexed")
	}
	f.run()
	if got := paths(f.search("phantom")); got != "" {
		t.Errorf("stray passage survived: %q", got)
	}
}

func TestChangedChunkingRebuilds(t *testing.T) {
	f := newFixture(t, basic)
	f.run()
	f.close()
	cfg := config.Default()
	cfg.Chunk.MaxTokens = 128
	f.openWith(cfg)
	if s := f.run(); s.Changed != 3 {
		t.Errorf("after a chunking change: %+v, want all 3 notes redone", s)
	}
}

func TestGeneratedRawAndInboxAreNotIndexed(t *testing.T) {
	files := map[string]string{
		"Quire/Sources/Clip.md": "# Clip\n\nA note about quokkas.\n",
		"Quire/raw/clip.md":     "# Clip\n\nThe original clip about quokkas.\n",
		"Quire/Inbox/later.md":  "# Later\n\nWaiting quokkas.\n",
	}
	f := newFixture(t, files)
	if st := f.run(); st.Notes != 1 {
		t.Fatalf("run: %+v, want only the source note", st)
	}
	if got := paths(f.search("quokkas")); got != "Quire/Sources/Clip.md" {
		t.Errorf("quokkas found in %q, want only the source note", got)
	}
}

func TestSetPathsDropsAndRestoresNotes(t *testing.T) {
	f := newFixture(t, basic)
	f.run()
	f.ix.SetPaths([]string{"cheese/"}, "Quire")
	if st := f.run(); st.Removed != 2 || st.Notes != 1 {
		t.Fatalf("after ignoring cheese/: %+v, want 2 removed, 1 note", st)
	}
	if got := paths(f.search("brie")); got != "" {
		t.Errorf("ignored note still found: %s", got)
	}
	f.ix.SetPaths(nil, "Quire")
	if st := f.run(); st.Changed != 2 || st.Notes != 3 {
		t.Fatalf("after ignoring nothing: %+v, want 2 changed, 3 notes", st)
	}
}

func TestSummarize(t *testing.T) {
	entries := map[string]Entry{
		"b.md":   {Chunks: 2, Lang: "en", Warning: "broken frontmatter"},
		"a.md":   {Chunks: 3, Lang: "en", Warning: "not UTF-8 in places"},
		"c.md":   {Chunks: 1},
		"d.md":   {Chunks: 4096, Size: 6380},
		"old.md": {Chunks: 1, Superseded: true, SupersededBy: "Gone"},
	}
	tally, marks := Tally{Langs: map[string]int{}}, map[string]Entry{}
	for p, e := range entries {
		tally.add(e, 1)
		if marked(e) {
			marks[p] = e
		}
	}
	got, err := summarizeMarks(tally, marks, func() (map[string]Entry, error) { return entries, nil })
	if err != nil || got.Notes != 5 || got.Chunks != 4103 || got.Languages["en"] != 2 || got.Languages["unknown"] != 3 {
		t.Errorf("got %+v, %v, want 5 notes, 4103 chunks, en 2, unknown 3", got, err)
	}
	if len(got.Warnings) != 4 || got.Warnings[0].Path != "a.md" || got.Warnings[1].Reason != "broken frontmatter" ||
		got.Warnings[2].Path != "d.md" || !strings.Contains(got.Warnings[2].Reason, "4096 passages for 7 KB") ||
		got.Warnings[3].Path != "old.md" {
		t.Errorf("warnings = %+v, want a.md, b.md, d.md out of scale, then old.md's broken chain", got.Warnings)
	}
}

// TestPrivateMarkReadAfterUpgrade: an index from before the private mark
// (its catalog says nothing of it) is rebuilt, so that a note already
// carrying `private: true` is known private without being edited.
func TestPrivateMarkReadAfterUpgrade(t *testing.T) {
	f := newFixture(t, map[string]string{"Answers/Old.md": "---\nprivate: true\n---\n# Old\n\nA private answer.\n", "Plain.md": "# Plain\n\nText.\n"})
	f.run()
	entries, _ := f.ix.cat.entries()
	if !entries["Answers/Old.md"].Private || entries["Plain.md"].Private {
		t.Fatalf("entries %+v, want only Answers/Old.md private", entries)
	}
	// As the version before the mark left it.
	old := entries["Answers/Old.md"]
	old.Private = false
	if err := f.ix.cat.apply(map[string]*Entry{"Answers/Old.md": &old}); err != nil {
		t.Fatal(err)
	}
	meta, _ := f.ix.cat.meta()
	meta.Fingerprint = strings.Replace(f.ix.Fingerprint(), "analysis="+analysis, "analysis=lang-5", 1)
	if err := f.ix.cat.setMeta(meta); err != nil {
		t.Fatal(err)
	}
	f.close()
	f.open()
	f.run()
	if entries, _ = f.ix.cat.entries(); !entries["Answers/Old.md"].Private {
		t.Error("a note marked private before the upgrade is not known private after it")
	}
}
