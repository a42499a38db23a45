package compile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest/extract"
)

// olderLayout rewrites a note Quire wrote as a release of layout format-1
// would have: the same note, quire_format one lower, sealed again.
func olderLayout(t testing.TB, vault, rel string) {
	t.Helper()
	b := []byte(readFile(t, vault, rel))
	b = regexp.MustCompile(`(?m)^quire_format: \d+$`).ReplaceAll(b, []byte("quire_format: "+itoa(Format-1)))
	sum := sha256.Sum256(unsealed(b))
	b = hashLine.ReplaceAll(b, []byte("quire_hash: "+hex.EncodeToString(sum[:])))
	if _, ok := ours(b); !ok {
		t.Fatalf("%s: resealed note is not Quire's", rel)
	}
	if err := os.WriteFile(filepath.Join(vault, filepath.FromSlash(rel)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// cropModel plans the concepts concepts (names found in cropText) and
// describes each with desc.
func cropModel(title, desc string, concepts ...string) fake {
	return fake{
		read: func(string) notes { return notes{Points: []string{"Cover crops protect soil."}} },
		plan: func(string) plan {
			p := plan{Title: title, OneLiner: "On cover crops.", Summary: "Cover crops protect soil."}
			for _, c := range concepts {
				p.Concepts = append(p.Concepts, concept{Name: c, Description: desc + " " + c + "."})
			}
			return p
		},
	}
}

func cropDoc(title, extra string) *extract.Doc {
	text := title + ". A cover crop such as rye protects the soil over winter. Green manure and mulch feed it. " + extra
	return &extract.Doc{Title: title, Text: text, Markdown: text}
}

func compileCrop(t *testing.T, vault string, doc *extract.Doc, rebuild string, f fake) Result {
	t.Helper()
	model, _ := newModel(t, f, 0)
	src := Source{Doc: doc, Origin: "/clips/" + doc.Title + ".txt", Raw: "Quire/raw/" + doc.Title + ".txt",
		Captured: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), Rebuild: rebuild}
	res, err := Compile(context.Background(), src, Options{Vault: vault, Folder: "Quire", Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRebuild: a note of an older layout is rebuilt from its original at
// its own path and title; the sections it gave concept pages are those of
// the new plan, once (a rebuild run again, as after a kill before the note
// was written, adds none), and a page the new plan drops loses its
// section; a note the user edited is left as it is, its new version in
// review, and the pages it gave sections to keep them.
func TestRebuild(t *testing.T) {
	vault := t.TempDir()
	a, b := cropDoc("Winter fields", ""), cropDoc("Spring beds", "Beds are dug in March.")
	resA := compileCrop(t, vault, a, "", cropModel("Winter fields", "Old view of", "cover crop", "green manure"))
	resB := compileCrop(t, vault, b, "", cropModel("Spring beds", "B on", "cover crop"))
	for _, n := range []string{resA.Note, resB.Note, "Quire/Concepts/cover crop.md", "Quire/index.md"} {
		if !strings.Contains(readFile(t, vault, n), "\nquire_format: "+itoa(Format)+"\n") {
			t.Errorf("%s lacks quire_format %d", n, Format)
		}
	}
	if out, err := ListOutdated(vault, "Quire"); err != nil || len(out) != 0 {
		t.Fatalf("outdated before any bump: %v, %v", out, err)
	}
	olderLayout(t, vault, resA.Note)
	out, err := ListOutdated(vault, "Quire")
	if err != nil || len(out) != 1 || out[0].Note != resA.Note || out[0].Title != "Winter fields" || out[0].Edited || out[0].Raw != "Quire/raw/Winter fields.txt" {
		t.Fatalf("outdated after the bump: %+v, %v", out, err)
	}

	// The new layout's plan: the model now titles it otherwise, keeps
	// cover crop with new words, drops green manure, adds mulch.
	newPlan := cropModel("A new title", "New view of", "cover crop", "mulch")
	for run := 0; run < 2; run++ {
		res := compileCrop(t, vault, a, resA.Note, newPlan)
		if res.Note != resA.Note || res.Title != "Winter fields" || res.Kept {
			t.Fatalf("run %d: rebuilt %s %q (kept %v), want %s %q", run, res.Note, res.Title, res.Kept, resA.Note, "Winter fields")
		}
		if run == 0 {
			olderLayout(t, vault, resA.Note) // as if killed before the note was written
		}
	}
	note := readFile(t, vault, resA.Note)
	if !strings.Contains(note, "\ntitle: Winter fields\n") || !strings.Contains(note, "\nquire_format: "+itoa(Format)+"\n") {
		t.Errorf("rebuilt note:\n%s", note)
	}
	cover := readFile(t, vault, "Quire/Concepts/cover crop.md")
	if n := strings.Count(cover, "## From [[Quire/Sources/Winter fields|"); n != 1 || !strings.Contains(cover, "New view of cover crop.") ||
		strings.Contains(cover, "Old view of") || !strings.Contains(cover, "B on cover crop.") {
		t.Errorf("cover crop after the rebuild (%d sections from it):\n%s", n, cover)
	}
	green := readFile(t, vault, "Quire/Concepts/green manure.md")
	if strings.Contains(green, "Winter fields") {
		t.Errorf("green manure keeps the section the new plan dropped:\n%s", green)
	}
	if _, ok := ours([]byte(green)); !ok {
		t.Errorf("green manure is not whole:\n%s", green)
	}
	if !strings.Contains(readFile(t, vault, "Quire/Concepts/mulch.md"), "New view of mulch.") {
		t.Error("mulch page not written")
	}
	if idx := readFile(t, vault, "Quire/index.md"); strings.Count(idx, "|Winter fields]]") != 1 {
		t.Errorf("index.md:\n%s", idx)
	}
	if out, _ := ListOutdated(vault, "Quire"); len(out) != 0 {
		t.Errorf("still outdated: %+v", out)
	}

	// The user edited B: it is not overwritten, nor are the pages it gave
	// sections to; its new version is in review.
	olderLayout(t, vault, resB.Note)
	edited := readFile(t, vault, resB.Note) + "\nMy own line.\n"
	os.WriteFile(filepath.Join(vault, filepath.FromSlash(resB.Note)), []byte(edited), 0o644)
	before := snapshot(t, vault, "Quire/Concepts")
	out, _ = ListOutdated(vault, "Quire")
	if len(out) != 1 || !out[0].Edited || out[0].Review != "Quire/Review/Spring beds (new version).md" {
		t.Fatalf("outdated edited note: %+v", out)
	}
	res := compileCrop(t, vault, b, resB.Note, cropModel("Spring beds", "B now on", "mulch"))
	if got := readFile(t, vault, resB.Note); got != edited {
		t.Errorf("edited note overwritten:\n%s", got)
	}
	if len(res.Review) != 1 || !strings.Contains(readFile(t, vault, out[0].Review), "[[Quire/Concepts/mulch|mulch]]") {
		t.Errorf("review of the edited note: %v", res.Review)
	}
	if after := snapshot(t, vault, "Quire/Concepts"); len(after) != len(before) || after["Quire/Concepts/cover crop.md"] != before["Quire/Concepts/cover crop.md"] ||
		after["Quire/Concepts/mulch.md"] != before["Quire/Concepts/mulch.md"] {
		t.Error("a rebuild of an edited note changed concept pages")
	}
}

// TestRebuildKeepsSummaryWhenModelFails: with no model the rebuild keeps a
// summarised note as it was, in its old layout, for a later run.
func TestRebuildKeepsSummaryWhenModelFails(t *testing.T) {
	vault := t.TempDir()
	a := cropDoc("Winter fields", "")
	resA := compileCrop(t, vault, a, "", cropModel("Winter fields", "Old view of", "cover crop"))
	olderLayout(t, vault, resA.Note)
	old := readFile(t, vault, resA.Note)
	res, err := Compile(context.Background(), Source{Doc: a, Origin: "/clips/Winter fields.txt", Rebuild: resA.Note}, Options{Vault: vault, Folder: "Quire"})
	if err != nil || !res.Kept {
		t.Fatalf("rebuild without a model: kept %v, %v", res.Kept, err)
	}
	if got := readFile(t, vault, resA.Note); got != old {
		t.Errorf("note changed:\n%s", got)
	}
}
