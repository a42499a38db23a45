package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/internal/secondbrain"
)

// TestOneShotReadsOnlyWhatTheQueryNeeds: an engine opened on an index
// and asked a question without a pass (quire search with no sidecar)
// ranks exactly as the engine that ran the pass, supersession, dates,
// hubs and private marks included, and a question that needs no
// whole-vault list (the main hub) reads no catalog record but its
// candidates': a one-shot search costs what the query needs, not one
// decoded record per note of the vault. With the built-in embedder, the
// hybrid search's vectors cover every passage and say so without
// reading the records either.
func TestOneShotReadsOnlyWhatTheQueryNeeds(t *testing.T) {
	t.Run("keywords", func(t *testing.T) { testOneShot(t, "dense:\n  embedder: none\n") })
	t.Run("hybrid", func(t *testing.T) { testOneShot(t, "") })
}

func testOneShot(t *testing.T, config string) {
	dir := t.TempDir()
	v, err := secondbrain.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.Dir, "Secret.md"), []byte("---\nprivate: true\n---\n# Secret\n\nThe garden shed key is under the pot.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(dir, "state")
	os.MkdirAll(stateDir, 0o755)
	os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(config), 0o644)
	open := func() *engine.Engine {
		e, err := engine.Open(engine.Setup{Vault: v.Dir, State: stateDir, Engine: engine.Options{Now: func() time.Time { return secondbrain.Today }}})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.EnableDense(context.Background()); err != nil {
			t.Fatal(err)
		}
		return e
	}
	ctx := context.Background()
	results := func(e *engine.Engine) map[string][]string {
		out := map[string][]string{}
		for _, q := range v.Questions {
			r, err := e.Search(ctx, engine.Query{Text: q.Question, K: 10})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range r.Passages {
				out[q.Question] = append(out[q.Question], p.ID)
			}
		}
		return out
	}

	e := open()
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	want := results(e)
	e.Close()

	e = open()
	defer e.Close()
	if _, err := e.Search(ctx, engine.Query{Text: "Who is my dentist?", K: 10}); err != nil {
		t.Fatal(err)
	}
	if e.Index().Loaded() {
		t.Error("a one-shot search read the whole catalog")
	}
	if config == "" {
		if ds := e.Vectors(); ds.Passages == 0 || ds.Coverage() != 1 {
			t.Errorf("one-shot vectors %+v, want every passage embedded", ds)
		}
		if e.Index().Loaded() {
			t.Error("the vectors' coverage read the whole catalog")
		}
	}
	if got := results(e); !reflect.DeepEqual(got, want) {
		for q := range want {
			if !reflect.DeepEqual(got[q], want[q]) {
				t.Errorf("%q: one-shot %v, after a pass %v", q, got[q], want[q])
			}
		}
	}
	st, err := e.Status(ctx)
	if err != nil || st.Notes != len(v.Notes)+1 {
		t.Errorf("status: %d notes, %v; want %d", st.Notes, err, len(v.Notes)+1)
	}
}

// TestOneShotStatus: status opened one-shot answers from the catalog's
// tally and marked notes, the warnings included, without reading every
// record; only config private, whose entries must each be checked
// against the notes, reads them.
func TestOneShotStatus(t *testing.T) {
	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	notes := map[string]string{
		"a.md":       "# A\n\nalpha\n",
		"b.md":       "---\nlang: it\n---\n# B\n\nparole\n",
		"bad.md":     "---\ntitle: [unclosed\n---\n# Bad\n\nkept despite its frontmatter\n",
		"Secret.md":  "---\nprivate: true\n---\n# Secret\n\nthe key\n",
		"sub/c.md":   "# C\n\ncharlie\n",
		"sub/d.md":   "# D\n\ndelta\n",
		"sub/e.md":   "# E\n\necho\n",
		"sub/f/g.md": "# G\n\ngolf\n",
	}
	writeNotes(t, vaultDir, notes)
	os.MkdirAll(stateDir, 0o755)
	status := func(config string, reindex bool) (engine.Status, bool) {
		t.Helper()
		os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte("dense:\n  embedder: none\n"+config), 0o644)
		e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if reindex {
			if _, err := e.Reindex(context.Background(), false, nil); err != nil {
				t.Fatal(err)
			}
		}
		st, err := e.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return st, e.Index().Loaded()
	}
	want, _ := status("", true)
	got, loaded := status("", false)
	if loaded {
		t.Error("one-shot status read every record")
	}
	if got.Notes != len(notes) || got.Chunks != want.Chunks || !reflect.DeepEqual(got.Languages, want.Languages) ||
		len(got.Warnings) != 1 || got.Warnings[0].Path != "bad.md" || !reflect.DeepEqual(got.Warnings, want.Warnings) {
		t.Errorf("one-shot status %+v, after a pass %+v: want %d notes and bad.md's warning", got, want, len(notes))
	}
	got, _ = status("private: [sub/f/, nowhere/]\n", false)
	if n := len(got.Warnings); n != 2 || got.Warnings[1].Path != "nowhere/" {
		t.Errorf("with config private: warnings %+v, want bad.md's and nowhere/ matching no note", got.Warnings)
	}
}
