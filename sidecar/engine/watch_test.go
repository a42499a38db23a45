package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
)

// TestRebuild: a rebuild re-reads every note and says so in one Changed.
func TestRebuild(t *testing.T) {
	r := run(t, notes)
	if !r.e.Rebuild() {
		t.Fatal("rebuild refused with no pass running")
	}
	ev := r.waitEvent("changed", func(ev engine.Event) bool { _, ok := ev.(*engine.Changed); return ok })
	if changed := ev.(*engine.Changed); len(changed.Paths) != 4 || !changed.Rebuild {
		t.Errorf("rebuild changed %+v, want all 4 notes and Rebuild", changed)
	}
	r.waitIndexed()
	st, err := r.e.Status(t.Context())
	if err != nil || st.Notes != 4 {
		t.Errorf("status after rebuild: %+v, %v", st, err)
	}
	res, err := r.e.Search(t.Context(), engine.Query{Text: "custard", Channel: search.BM25})
	if err != nil || len(res.Passages) != 1 {
		t.Errorf("search after rebuild: %+v, %v; want one passage", res, err)
	}
}

// TestWatchLatency edits, adds, renames and deletes notes and expects each
// change in search results without a rebuild, as the plugin's related
// pane needs, and a Changed naming the edited note.
func TestWatchLatency(t *testing.T) {
	r := run(t, notes)
	found := func(word string) []string {
		res, err := r.e.Search(t.Context(), engine.Query{Text: word, Channel: search.BM25})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, p := range res.Passages {
			if strings.Contains(p.Text, word) {
				paths = append(paths, p.Path)
			}
		}
		return paths
	}
	// How fast the watch sees a change is measured, not asserted (a loaded
	// machine took 0.98 s of a 1 s bound once): the bound only stops a
	// watch that missed the change.
	within := func(what string, cond func() bool) {
		t.Helper()
		began := time.Now()
		for !cond() {
			if time.Since(began) > 30*time.Second {
				t.Fatalf("%s: not visible after 30 s: the watch missed it", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Logf("%s: visible after %s", what, time.Since(began).Round(time.Millisecond))
	}

	r.write("Garden/Tomatoes.md", notes["Garden/Tomatoes.md"]+"\nMulch with quokkagrass clippings.\n")
	within("edit", func() bool { return strings.Join(found("quokkagrass"), ",") == "Garden/Tomatoes.md" })

	r.write("Garden/Beans.md", "# Beans\n\nRunner beans climb zebrafence poles.\n")
	within("new note", func() bool { return strings.Join(found("zebrafence"), ",") == "Garden/Beans.md" })

	if err := os.Rename(filepath.Join(r.vault, "Garden/Beans.md"), filepath.Join(r.vault, "Garden/Runner beans.md")); err != nil {
		t.Fatal(err)
	}
	within("rename", func() bool { return strings.Join(found("zebrafence"), ",") == "Garden/Runner beans.md" })

	if err := os.Remove(filepath.Join(r.vault, "Garden/Runner beans.md")); err != nil {
		t.Fatal(err)
	}
	within("delete", func() bool { return len(found("zebrafence")) == 0 })

	r.waitEvent("changed naming Garden/Tomatoes.md", func(ev engine.Event) bool {
		c, ok := ev.(*engine.Changed)
		return ok && strings.Contains(strings.Join(c.Paths, "\n"), "Garden/Tomatoes.md")
	})
}

// TestSkipWarning writes a note that is not UTF-8 while the engine runs:
// one warning names it, and status lists it as skipped.
func TestSkipWarning(t *testing.T) {
	r := run(t, notes)
	r.write("Inbox/scan.md", "# Scan\n\n\xff\xfe binary junk\n")
	ev := r.waitEvent("warning", func(ev engine.Event) bool { _, ok := ev.(*engine.Warning); return ok })
	if w := ev.(*engine.Warning); w.Kind != engine.WarnSkipped || !strings.Contains(w.Message, "Inbox/scan.md") {
		t.Errorf("warning %+v does not name the file as skipped", w)
	}
	r.waitIndexed()
	st, err := r.e.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Skipped) != 1 || st.Skipped[0].Path != "Inbox/scan.md" || st.Notes != 4 {
		t.Errorf("status skipped %+v, %d notes; want Inbox/scan.md skipped, 4 notes", st.Skipped, st.Notes)
	}
}
