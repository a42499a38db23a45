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
