package markdown_test

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/internal/benchdir"
	"github.com/quire-app/quire/sidecar/internal/vaultgen"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/vault"
)

// checkPassages holds a note's passages to what an index may contain:
// none empty, each beginning and ending after the one before (no passage
// inside another), every word of the body in some passage, and no more
// passages than the note's size allows (see markdown.PassageBound).
func checkPassages(t *testing.T, name string, raw []byte, bodyStart int, chunks []markdown.Chunk, p markdown.Params) {
	t.Helper()
	covered := bodyStart
	for i, c := range chunks {
		switch {
		case c.Start < bodyStart || c.End > len(raw):
			t.Errorf("%s: passage %d [%d,%d) outside the body [%d,%d)", name, i, c.Start, c.End, bodyStart, len(raw))
			return
		case strings.TrimSpace(string(raw[c.Start:c.End])) == "":
			t.Errorf("%s: passage %d [%d,%d) is empty", name, i, c.Start, c.End)
			return
		case i > 0 && (c.Start <= chunks[i-1].Start || c.End <= chunks[i-1].End):
			t.Errorf("%s: passage %d [%d,%d) does not follow passage %d [%d,%d)", name, i, c.Start, c.End, i-1, chunks[i-1].Start, chunks[i-1].End)
			return
		}
		if gap := strings.TrimSpace(string(raw[min(covered, c.Start):c.Start])); gap != "" {
			t.Errorf("%s: before passage %d, text in no passage: %.60q", name, i, gap)
			return
		}
		covered = max(covered, c.End)
	}
	if len(chunks) < markdown.MaxPassages {
		if rest := strings.TrimSpace(string(raw[covered:])); rest != "" {
			t.Errorf("%s: after the last passage, text in no passage: %.60q", name, rest)
		}
	}
	if b := markdown.PassageBound(raw[bodyStart:], p); len(chunks) > b {
		t.Errorf("%s: %d passages for %d bytes, more than the bound %d", name, len(chunks), len(raw)-bodyStart, b)
	}
}

// TestRealNotesMakeSoundPassages chunks every note of the bench corpora and
// the fixture notes that once became 4,096 mostly empty passages each.
func TestRealNotesMakeSoundPassages(t *testing.T) {
	p := markdown.Params{MaxTokens: 256, OverlapTokens: 64, MinTokens: 64}
	c := markdown.New(p)
	for _, dir := range markdown.CorpusDirs {
		notes := eachNote(t, benchdir.Require(t, dir), func(rel string, n *vault.Note) {
			checkPassages(t, dir+"/"+rel, n.Raw, n.BodyStart, c.Split(n.Raw, n.BodyStart), p)
		})
		if notes == 0 {
			t.Errorf("%s: no notes", dir)
		}
	}
}

// TestPassagesAsWithTheCodec: every note of the bench corpora, the
// fixtures and a generated vault is cut into the same passages, byte for
// byte and heading for heading, as when every token was counted by the
// codec itself.
func TestPassagesAsWithTheCodec(t *testing.T) {
	p := markdown.Params{MaxTokens: 256, OverlapTokens: 64, MinTokens: 64}
	fast, ref := markdown.New(p), markdown.CodecChunker(p)
	roots := map[string]string{}
	for _, dir := range markdown.CorpusDirs {
		roots[dir] = benchdir.Require(t, dir)
	}
	roots["genvault"] = t.TempDir()
	if _, err := vaultgen.Write(roots["genvault"], vaultgen.Options{Notes: 300, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	for dir, root := range roots {
		passages := 0
		notes := eachNote(t, root, func(rel string, n *vault.Note) {
			got, want := fast.Split(n.Raw, n.BodyStart), ref.Split(n.Raw, n.BodyStart)
			passages += len(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s: %d passages, the codec's cut %d: %s", dir, rel, len(got), len(want), firstChunkDiff(n.Raw, got, want))
			}
		})
		if notes == 0 || passages < notes {
			t.Errorf("%s: %d notes, %d passages", dir, notes, passages)
		}
	}
}

// eachNote calls fn with every Markdown note under root the index would
// read (a note it skips is skipped here too) and returns how many.
func eachNote(t *testing.T, root string, fn func(rel string, n *vault.Note)) int {
	t.Helper()
	notes := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		n, err := vault.Read(root, filepath.ToSlash(rel), 5<<20)
		if err != nil {
			return nil
		}
		notes++
		fn(rel, n)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

// firstChunkDiff names the first passage that differs.
func firstChunkDiff(raw []byte, got, want []markdown.Chunk) string {
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return fmt.Sprintf("passage %d missing: [%d,%d)", i, want[i].Start, want[i].End)
		case i >= len(want):
			return fmt.Sprintf("passage %d extra: [%d,%d)", i, got[i].Start, got[i].End)
		case !reflect.DeepEqual(got[i], want[i]):
			return fmt.Sprintf("passage %d: got %+v, want %+v (%.40q)", i, got[i], want[i], raw[want[i].Start:want[i].End])
		}
	}
	return "same"
}

// TestIndentedCodeFixtures: two real notes with an indented code block
// holding a line indented further and a long unbroken line were cut into
// 4,096 passages each, nearly all empty. They make a handful.
func TestIndentedCodeFixtures(t *testing.T) {
	p := markdown.Params{MaxTokens: 256, OverlapTokens: 64, MinTokens: 64}
	c := markdown.New(p)
	root := benchdir.Require(t, "fixtures", "simonw-til")
	for _, rel := range []string{"python/build-official-docs.md", "sqlite/ld-preload.md"} {
		n, err := vault.Read(root, rel, 5<<20)
		if err != nil {
			t.Fatal(err)
		}
		chunks := c.Split(n.Raw, n.BodyStart)
		if len(chunks) == 0 || len(chunks) > 16 {
			t.Errorf("%s: %d passages, want a handful", rel, len(chunks))
		}
		checkPassages(t, rel, n.Raw, n.BodyStart, chunks, p)
	}
}
