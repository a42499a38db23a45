package compile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
)

// TestToday: the daily view lists what was ingested and failed today, the
// queue and the open review items; a ticked item is resolved in its own
// note and leaves the list; a view edited beyond its boxes is left alone,
// its ticks unread.
func TestToday(t *testing.T) {
	vault := t.TempDir()
	if err := Adopt(vault, "Quire"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Rye", "Mulch"} {
		b, err := renderReview("The page "+name+" was edited.", "Quire/Concepts/"+name+".md", "", name, "What the source adds.\n", false)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(vault, "Quire", "Review"), 0o755)
		os.WriteFile(filepath.Join(vault, "Quire", "Review", name+".md"), b, 0o644)
	}
	now := time.Date(2026, 12, 6, 15, 0, 0, 0, time.Local)
	items := []ingest.Item{
		{ID: 1, Source: "https://a.example/rye", State: ingest.StateDone, Result: "Quire/Sources/Rye in winter.md", Updated: now.Add(-time.Hour)},
		{ID: 2, Source: "https://a.example/old", State: ingest.StateDone, Result: "Quire/Sources/Old.md", Updated: now.Add(-24 * time.Hour)},
		{ID: 3, Source: "https://a.example/gone", State: ingest.StateFailed, LastError: "fetch: 404", Updated: now.Add(-time.Minute)},
		{ID: 4, Source: "/clips/beds.pdf", State: ingest.StateQueued, Updated: now},
		{ID: 5, Source: "/vault/Journal/diary.md", State: ingest.StateDone, Result: "Quire/Sources/Diary.md", Updated: now},
	}
	os.MkdirAll(filepath.Join(vault, "Quire", "Sources"), 0o755)
	os.WriteFile(filepath.Join(vault, "Quire", "Sources", "Diary.md"), []byte("---\nquire: generated\nquire_kind: source\nprivate: true\n---\n# Diary\n"), 0o644)
	opt := TodayOptions{Vault: vault, Folder: "Quire", Now: now, Items: items}
	res, err := WriteToday(opt)
	if err != nil || res.Note != "Quire/Today.md" {
		t.Fatalf("WriteToday: %+v, %v", res, err)
	}
	view := readFile(t, vault, "Quire/Today.md")
	for _, want := range []string{"[[Quire/Sources/Rye in winter|Rye in winter]] — from https://a.example/rye",
		"https://a.example/gone — fetch: 404", "/clips/beds.pdf — queued",
		"- [ ] [[Quire/Review/Rye|Rye]] — The page Rye was edited.", "- [ ] [[Quire/Review/Mulch|Mulch]]"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "Diary") || strings.Contains(view, "diary") || !strings.Contains(view, "1 more about private notes") {
		t.Errorf("view names a private note, or does not count it:\n%s", view)
	}
	if strings.Contains(view, "Old") {
		t.Errorf("view lists yesterday's source:\n%s", view)
	}

	// The user ticks Rye.
	os.WriteFile(filepath.Join(vault, "Quire", "Today.md"), []byte(strings.Replace(view, "- [ ] [[Quire/Review/Rye", "- [x] [[Quire/Review/Rye", 1)), 0o644)
	res, err = WriteToday(opt)
	if err != nil || len(res.Resolved) != 1 || res.Resolved[0] != "Quire/Review/Rye.md" {
		t.Fatalf("after a tick: %+v, %v", res, err)
	}
	rye := readFile(t, vault, "Quire/Review/Rye.md")
	if _, ok := ours([]byte(rye)); !ok || !strings.Contains(rye, "\nstatus: resolved\n") || !strings.Contains(rye, "\ndecided: \"2026-12-06\"\n") {
		t.Errorf("ticked review item:\n%s", rye)
	}
	view = readFile(t, vault, "Quire/Today.md")
	if strings.Contains(view, "Review/Rye") || !strings.Contains(view, "Review/Mulch") {
		t.Errorf("view after the tick:\n%s", view)
	}

	// Edited beyond its boxes: neither regenerated nor read.
	edited := strings.Replace(view, "- [ ] [[Quire/Review/Mulch", "- [x] [[Quire/Review/Mulch", 1) + "\nMy plan for Sunday.\n"
	os.WriteFile(filepath.Join(vault, "Quire", "Today.md"), []byte(edited), 0o644)
	mulch := readFile(t, vault, "Quire/Review/Mulch.md")
	res, err = WriteToday(opt)
	if err != nil || res.Warning == "" || res.Note != "" || len(res.Resolved) != 0 {
		t.Errorf("an edited view: %+v, %v", res, err)
	}
	if readFile(t, vault, "Quire/Today.md") != edited || readFile(t, vault, "Quire/Review/Mulch.md") != mulch {
		t.Error("an edited view was rewritten or its ticks read")
	}
}
