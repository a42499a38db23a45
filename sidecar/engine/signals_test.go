package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/internal/secondbrain"
	"github.com/quire-app/quire/sidecar/search"
)

// openSecondBrain opens the engine, keywords only, with the reranker on
// (or off), on a fresh second-brain dev vault.
func openSecondBrain(t *testing.T, rerank string) (*engine.Engine, secondbrain.Vault) {
	t.Helper()
	dir := t.TempDir()
	v, err := secondbrain.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(dir, "state")
	os.MkdirAll(stateDir, 0o755)
	os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte("dense:\n  embedder: none\nsearch:\n  rerank: "+rerank+"\n"), 0o644)
	e, err := engine.Open(engine.Setup{Vault: v.Dir, State: stateDir, Engine: engine.Options{Now: func() time.Time { return secondbrain.Today }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Reindex(context.Background(), false, nil); err != nil {
		t.Fatal(err)
	}
	return e, v
}

// rankOf is the rank of the first passage of note p, or -1.
func rankOf(ps []search.Passage, p string) int {
	for i, x := range ps {
		if x.Path == p {
			return i
		}
	}
	return -1
}

// TestSuccessorOutranksSuperseded: for a question about the shed plan,
// the current plan (v3, at the end of v1 → v2 → v3) comes before both
// plans it replaced, and status names the broken chain.
func TestSuccessorOutranksSuperseded(t *testing.T) {
	e, v := openSecondBrain(t, "off")
	ctx := context.Background()
	for _, q := range []string{"What is the plan for the garden shed?", "How much will the garden shed cost?", "shed plan v1"} {
		r, err := e.Search(ctx, engine.Query{Text: q, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		succ := rankOf(r.Passages, v.Successor)
		for _, old := range v.Superseded {
			if o := rankOf(r.Passages, old); o >= 0 && (succ < 0 || succ > o) {
				t.Errorf("%q: %s at %d, before its successor %s at %d", q, old, o, v.Successor, succ)
			}
		}
		if succ < 0 {
			t.Errorf("%q: successor %s not in the top 10", q, v.Successor)
		}
	}
	st, err := e.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	said := false
	for _, w := range st.Warnings {
		said = said || w.Path == v.BrokenChain && strings.Contains(w.Reason, v.BrokenTarget)
	}
	if !said {
		t.Errorf("status does not name the broken chain %s → %s: %+v", v.BrokenChain, v.BrokenTarget, st.Warnings)
	}
}

// TestHubDoesNotHideTheLeaf: for the dev vault's fact questions, whose
// answers sit in leaves that hub notes (maps of content) link to, the
// leaf holding the fact is among the first three notes: the hubs, which
// share the leaves' words through their links, do not push it out.
func TestHubDoesNotHideTheLeaf(t *testing.T) {
	e, v := openSecondBrain(t, "builtin")
	n := 0
	for _, q := range v.Questions {
		if q.Type != "fact" {
			continue
		}
		n++
		_, notes := searchNotes(t, e, q.Question)
		if i := slices.Index(notes, q.Gold[0]); i < 0 || i > 2 {
			t.Errorf("%q: %s is note %d of %v", q.Question, q.Gold[0], i, notes)
		}
	}
	if n == 0 {
		t.Fatal("no fact questions")
	}
}

// searchNotes searches question as a front end does (k 10) and lists the
// notes of the result in the order their first passage comes.
func searchNotes(t *testing.T, e *engine.Engine, question string) (search.Result, []string) {
	t.Helper()
	r, err := e.Search(context.Background(), engine.Query{Text: question, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	return r, notesOf(r.Passages)
}

// notesOf lists the notes of ps in the order their first passage comes.
func notesOf(ps []search.Passage) []string {
	var notes []string
	for _, p := range ps {
		if !slices.Contains(notes, p.Path) {
			notes = append(notes, p.Path)
		}
	}
	return notes
}

// TestNewerNoteWinsACurrentQuestion: of two versions of the laptop page,
// the one committed later answers "now" questions, with the reranker on
// or off; asked without a word about time, the order is the index's.
func TestNewerNoteWinsACurrentQuestion(t *testing.T) {
	for _, rerank := range []string{"off", "builtin"} {
		e, v := openSecondBrain(t, rerank)
		for _, q := range v.Questions {
			if q.Type != "current" {
				continue
			}
			_, notes := searchNotes(t, e, q.Question)
			newer, older := slices.Index(notes, v.Newer), slices.Index(notes, v.Older)
			if newer != 0 || older < 0 {
				t.Errorf("rerank %s, %q: %s is note %d and %s note %d of %v", rerank, q.Question, v.Newer, newer, v.Older, older, notes)
			}
		}
	}
}

// TestLastWeekPrefersThatWeeksDailyNotes: "last week" (the week before
// Today's) puts that week's daily notes that hold the question's words
// first, above other days' notes on the same subject, and the search
// says which days it read.
func TestLastWeekPrefersThatWeeksDailyNotes(t *testing.T) {
	e, v := openSecondBrain(t, "off")
	n := 0
	for _, q := range v.Questions {
		if q.Type != "last_week" {
			continue
		}
		n++
		r, notes := searchNotes(t, e, q.Question)
		if len(notes) < len(q.Gold) {
			t.Fatalf("%q: only %v", q.Question, notes)
		}
		for _, gold := range q.Gold {
			if i := slices.Index(notes, gold); i < 0 || i >= len(q.Gold) {
				t.Errorf("%q: %s is note %d of %v, want among the first %d", q.Question, gold, i, notes, len(q.Gold))
			}
		}
		w := r.Terms.When
		if got := w.From.Format("2006-01-02") + ".." + w.To.Format("2006-01-02"); got != "2026-11-23..2026-11-30" {
			t.Errorf("%q: read the span %s, want 2026-11-23..2026-11-30", q.Question, got)
		}
	}
	if n == 0 {
		t.Fatal("no last_week questions")
	}
}

// TestOverviewQuestionFindsTheHub: a question asking for an overview
// finds the hub that maps it among the first three notes, with the
// reranker on or off, even when the hub shares none of its words ("Give
// me an overview of my notes" and Home.md); the vault's hubs are known by
// name and by shape.
func TestOverviewQuestionFindsTheHub(t *testing.T) {
	for _, rerank := range []string{"off", "builtin"} {
		e, v := openSecondBrain(t, rerank)
		if hubs := e.Searcher().Hubs(); len(hubs) == 0 || hubs[0] != "Home.md" {
			t.Fatalf("hubs %v, want Home.md first", hubs)
		}
		n := 0
		for _, q := range v.Questions {
			if q.Type != "overview" {
				continue
			}
			n++
			_, notes := searchNotes(t, e, q.Question)
			if i := slices.Index(notes, q.Gold[0]); i < 0 || i > 2 {
				t.Errorf("rerank %s, %q: %s is note %d of %v", rerank, q.Question, q.Gold[0], i, notes)
			}
		}
		if n == 0 {
			t.Fatal("no overview questions")
		}
	}
}
