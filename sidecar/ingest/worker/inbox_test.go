package worker

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/quire-app/quire/sidecar/ingest"
)

// TestInbox: a dropped file is queued once it stops changing, ingested,
// and moved to Inbox/done/ unchanged; the same name dropped again is a new
// file, queued under a name of its own and refused by its text.
func TestInbox(t *testing.T) {
	r := newRig(t)
	inbox := filepath.Join(r.vault, "Quire", "Inbox")
	os.MkdirAll(inbox, 0o755)
	body := []byte("Cover crops keep soil in place over winter and feed it when turned in.\n")
	drop := filepath.Join(inbox, "cover.txt")
	os.WriteFile(drop, body[:20], 0o644)
	os.WriteFile(filepath.Join(inbox, ".partial.txt"), body, 0o644)
	os.WriteFile(filepath.Join(inbox, "photo.jpg"), body, 0o644)

	r.w.scanInbox()
	os.WriteFile(drop, body, 0o644) // still being written
	r.w.scanInbox()
	if items, _ := r.w.Queue().List(); len(items) != 0 {
		t.Fatalf("queued %d items while the file was still growing", len(items))
	}
	r.w.scanInbox()
	items, _ := r.w.Queue().List()
	if len(items) != 1 || items[0].Source != drop {
		t.Fatalf("queue after the file settled: %+v, want only %s", items, drop)
	}
	r.w.scanInbox()
	if items, _ := r.w.Queue().List(); len(items) != 1 {
		t.Fatalf("the same drop was queued %d times", len(items))
	}

	r.run()
	wantDone(t, r.ev.finished(t, items[0].ID))
	if got := readFile(t, filepath.Join(inbox, "done", "cover.txt")); got != string(body) {
		t.Errorf("moved file holds %q", got)
	}
	if _, err := os.Stat(drop); !os.IsNotExist(err) {
		t.Errorf("the dropped file is still in the inbox: %v", err)
	}

	// The same name again: the first drop's item is done, so this one is
	// renamed beside it and queued; its text is the same, so it fails as a
	// duplicate and stays in the inbox.
	r.halt()
	os.WriteFile(drop, body, 0o644)
	for range 4 {
		r.w.scanInbox()
	}
	items, _ = r.w.Queue().List()
	if len(items) != 2 || items[1].Source != filepath.Join(inbox, "cover-2.txt") {
		t.Fatalf("queue after a second drop of cover.txt: %+v", items)
	}
	r.run()
	wantFailed(t, r.ev.finished(t, items[1].ID), ingest.FailDuplicate, "already ingested as Quire/Sources/")
	if _, err := os.Stat(filepath.Join(inbox, "cover-2.txt")); err != nil {
		t.Errorf("a failed drop must stay in the inbox: %v", err)
	}
	if got, _ := r.w.Queue().Get(items[1].ID); got.State != ingest.StateFailed {
		t.Errorf("second drop %s, want failed", got.State)
	}
}

// TestInboxPolled: Run looks at the inbox by itself.
func TestInboxPolled(t *testing.T) {
	r := newRig(t, func(o *Options, _ *rig) { o.Inbox = 10e6 })
	inbox := filepath.Join(r.vault, "Quire", "Inbox")
	os.MkdirAll(inbox, 0o755)
	r.run()
	os.WriteFile(filepath.Join(inbox, "page.html"), article("Dropped page", "Saved from a browser."), 0o644)
	for e := range r.ev.ch {
		if d, ok := e.payload.(ingest.Done); ok {
			if d.Note != "Quire/Sources/Dropped page.md" {
				t.Errorf("note %s", d.Note)
			}
			break
		}
		if f, ok := e.payload.(ingest.Failed); ok {
			t.Fatalf("failed: %+v", f)
		}
	}
	if _, err := os.Stat(filepath.Join(inbox, "done", "page.html")); err != nil {
		t.Error(err)
	}
}

func TestMoveFreeNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "done")
	os.MkdirAll(done, 0o755)
	os.WriteFile(filepath.Join(done, "a.pdf"), []byte("first"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.pdf"), []byte("second"), 0o644)
	got, err := moveFree(filepath.Join(dir, "a.pdf"), done)
	if err != nil || got != filepath.Join(done, "a-2.pdf") {
		t.Fatalf("moveFree = %s, %v", got, err)
	}
	if b, _ := os.ReadFile(filepath.Join(done, "a.pdf")); string(b) != "first" {
		t.Errorf("the file already there was replaced: %q", b)
	}
	if b, _ := os.ReadFile(got); string(b) != "second" {
		t.Errorf("moved file holds %q", b)
	}
}

// TestInboxOfUserFolder: with the generated folder pointed at a folder of
// the user's notes, nothing in its Inbox/ is queued or moved.
func TestInboxOfUserFolder(t *testing.T) {
	r := newRig(t, func(o *Options, _ *rig) { o.Folder = "Kitchen" })
	kitchen := filepath.Join(r.vault, "Kitchen")
	os.MkdirAll(filepath.Join(kitchen, "Inbox"), 0o755)
	os.WriteFile(filepath.Join(kitchen, "log.md"), []byte("# What I cooked\n"), 0o644)
	recipe := filepath.Join(kitchen, "Inbox", "recipe.md")
	os.WriteFile(recipe, []byte("# Bread\n\nFlour, water, salt.\n"), 0o644)
	for range 3 {
		r.w.scanInbox()
	}
	if items, _ := r.w.Queue().List(); len(items) != 0 {
		t.Fatalf("queued the user's file: %+v", items)
	}
	if _, err := os.Stat(recipe); err != nil {
		t.Errorf("the user's file moved: %v", err)
	}
}
