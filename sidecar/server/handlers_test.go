package server

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/engine"
)

func call[T any](t *testing.T, c *client.Client, typ string, req any) (T, error) {
	t.Helper()
	var reply T
	err := c.Call(t.Context(), typ, req, &reply)
	return reply, err
}

func wantCode(t *testing.T, err error, code proto.ErrorCode) {
	t.Helper()
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != code {
		t.Errorf("got error %v, want %s", err, code)
	}
}

func TestStatus(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	got, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got.Notes != 4 || got.Chunks < 4 || got.Version != "test" || got.LastIndexed.IsZero() || got.Indexing {
		t.Errorf("status = %+v, want 4 notes, ≥4 chunks, version test, a last index time, not indexing", got)
	}
	if got.Languages["en"] == 0 || got.Fingerprint.Chunking != h.ix.Fingerprint() {
		t.Errorf("status languages %v, fingerprint %+v", got.Languages, got.Fingerprint)
	}
	if w := c.Welcome(); w.Protocol != proto.Version || w.Vault != h.vault {
		t.Errorf("welcome = %+v", w)
	}
}

// TestSearchFilter: search.query's folder and tag reach the engine
// (engine's TestSearchFilter has the filtering itself).
func TestSearchFilter(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	res, err := c.Search(t.Context(), proto.SearchQuery{Query: "water flour", K: 1, Folder: "Garden"})
	if err != nil || len(res.Passages) != 1 || res.Passages[0].Path != "Garden/Tomatoes.md" {
		t.Errorf("folder Garden, k 1: got %+v, %v; want Garden/Tomatoes.md", res.Passages, err)
	}
	res, err = c.Search(t.Context(), proto.SearchQuery{Query: "water flour", K: 3, Tag: "#nowhere"})
	if err != nil || len(res.Passages) != 0 {
		t.Errorf("a tag no note has: got %d passages, %v; want none", len(res.Passages), err)
	}
}

func TestSearch(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	res, err := c.Search(t.Context(), proto.SearchQuery{Query: "starter hydration", K: 3, Channel: proto.ChannelBM25})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Passages) == 0 || res.Channel != proto.ChannelBM25 || res.Warning != "" {
		t.Fatalf("got %+v, want bm25 passages without warning", res)
	}
	p := res.Passages[0]
	raw, err := os.ReadFile(filepath.Join(h.vault, filepath.FromSlash(p.Path)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != "Kitchen/Sourdough.md" || p.Title != "Sourdough" || p.ID == "" {
		t.Errorf("top passage %+v, want Kitchen/Sourdough.md", p)
	}
	if got := string(raw[p.Start:p.End]); got != p.Text {
		t.Errorf("text %q is not bytes %d..%d of the note (%q)", p.Text, p.Start, p.End, got)
	}
	// The words to mark are the passage's own, as the query matched them.
	if !slices.Contains(p.Matches, "starter") || !slices.Contains(p.Matches, "hydration") {
		t.Errorf("matches %q, want starter and hydration", p.Matches)
	}

	// The engine's warning reaches the wire (engine's TestSearch has the fallback itself).
	res, err = c.Search(t.Context(), proto.SearchQuery{Query: "starter", Channel: proto.ChannelHybrid})
	if err != nil {
		t.Fatal(err)
	}
	if res.Channel != proto.ChannelBM25 || !strings.Contains(res.Warning, "keyword") || len(res.Passages) == 0 {
		t.Errorf("hybrid without an embedder: got channel %q warning %q, %d passages", res.Channel, res.Warning, len(res.Passages))
	}

	res, err = c.Search(t.Context(), proto.SearchQuery{Query: "zzzunknownword", Channel: proto.ChannelBM25})
	if err != nil || res.Passages == nil || len(res.Passages) != 0 {
		t.Errorf("no match: got %+v, %v; want an empty list, not null", res, err)
	}
	// explain: the sidecar says how it read the query, its synonyms included.
	res, err = c.Search(t.Context(), proto.SearchQuery{Query: "starter", Explain: true})
	if err != nil || !strings.Contains(res.Explain, "query language") {
		t.Errorf("explain: %q, %v", res.Explain, err)
	}
	_, err = c.Search(t.Context(), proto.SearchQuery{Query: strings.Repeat("a ", engine.MaxQuery)})
	wantCode(t, err, proto.CodeTooLarge)
}

// TestRelated: related.query's path, text and excluded folders reach the
// engine, each note comes with its own passage, and the engine's errors
// come back as codes (engine's TestRelated* have the ranking itself).
func TestRelated(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	res, err := call[proto.RelatedResult](t, c, proto.TypeRelatedQuery, proto.RelatedQuery{Path: "Kitchen/Sourdough.md", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) == 0 || res.Notes[0].Path != "Kitchen/Rye bread.md" || res.Warning != "" {
		t.Fatalf("related to Sourdough: %+v, want Rye bread first", res.Notes)
	}
	for _, n := range res.Notes {
		if n.Passage.Path != n.Path {
			t.Errorf("note %s carries a passage of %s", n.Path, n.Passage.Path)
		}
	}
	res, err = call[proto.RelatedResult](t, c, proto.TypeRelatedQuery, proto.RelatedQuery{Text: "water flour", K: 1, Exclude: []string{"Kitchen/"}})
	if err != nil || len(res.Notes) != 1 || strings.HasPrefix(res.Notes[0].Path, "Kitchen/") {
		t.Errorf("related to text without Kitchen/: %+v, %v; want one note from elsewhere", res.Notes, err)
	}
	_, err = call[proto.RelatedResult](t, c, proto.TypeRelatedQuery, proto.RelatedQuery{})
	wantCode(t, err, proto.CodeInvalidRequest)
	_, err = call[proto.RelatedResult](t, c, proto.TypeRelatedQuery, proto.RelatedQuery{Path: "Nope.md"})
	wantCode(t, err, proto.CodeNotFound)
}

// TestNoteGet: note.get answers a note's text, and the engine's refusals
// come back as codes (engine's TestNote* have the path rules).
func TestNoteGet(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	got, err := call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Path: "Garden/Tomatoes.md"})
	if err != nil || got.Text != notes["Garden/Tomatoes.md"] || got.Path != "Garden/Tomatoes.md" {
		t.Errorf("got %+v, %v", got, err)
	}
	_, err = call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Path: "../outside.md"})
	wantCode(t, err, proto.CodeInvalidRequest)
	_, err = call[proto.NoteResult](t, c, proto.TypeNoteGet, proto.NoteGet{Path: "Garden/Potatoes.md"})
	wantCode(t, err, proto.CodeNotFound)
}

// TestRebuild: index.rebuild starts a rebuild, whose index.changed is
// pushed to clients without an id (engine's TestRebuild has the rebuild).
func TestRebuild(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	res, err := call[proto.IndexResult](t, c, proto.TypeIndexRebuild, proto.IndexRebuild{})
	if err != nil || !res.Started {
		t.Fatalf("rebuild: %+v, %v", res, err)
	}
	ev := waitEvent(t, c, proto.TypeIndexChanged, func(e proto.Envelope) bool { return true })
	var changed proto.IndexChanged
	if err := ev.Decode(&changed); err != nil {
		t.Fatal(err)
	}
	if len(changed.Paths) != 4 || ev.ID != "" {
		t.Errorf("index.changed %v with id %q, want all 4 notes and no id", changed.Paths, ev.ID)
	}
}

// waitEvent returns the first event of type typ that ok accepts.
func waitEvent(t *testing.T, c *client.Client, typ string, ok func(proto.Envelope) bool) proto.Envelope {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, open := <-c.Events():
			if !open {
				t.Fatalf("connection closed waiting for %s", typ)
			}
			if ev.Type == typ && ok(ev) {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s event", typ)
		}
	}
}

// TestSkipWarning writes a note that is not UTF-8 while the sidecar runs:
// clients get one sidecar.warning naming it, and status lists it (engine's
// TestSkipWarning has the skipping).
func TestSkipWarning(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	h.write("Inbox/scan.md", "# Scan\n\n\xff\xfe binary junk\n")
	ev := waitEvent(t, c, proto.TypeSidecarWarning, func(e proto.Envelope) bool { return true })
	var w proto.SidecarWarning
	if err := ev.Decode(&w); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Message, "Inbox/scan.md") {
		t.Errorf("warning %q does not name the file", w.Message)
	}
	h.waitIndexed()
	st, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Skipped) != 1 || st.Skipped[0].Path != "Inbox/scan.md" || st.Notes != 4 {
		t.Errorf("status skipped %+v, %d notes; want Inbox/scan.md skipped, 4 notes", st.Skipped, st.Notes)
	}
}
