package engine_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

// marker is planted in a private note; no request to the remote model and
// no note Quire writes may carry it.
const marker = "PRIVMARK-93c1"

// TestPrivateNotesNeverReachRemoteModel drives every path that calls a
// model — the remote embedder (dense.embedder: model), ask with rewrite,
// a follow-up to a private answer, an ask from an MCP client, the Related
// panel by path and by typed text, saved answers found later
// (after a change of folder too), and ingest (reading, planning,
// connections; of a page, and of the private note itself through a link
// to the vault) — against one recording fake on loopback that the config
// calls remote (model.remote: true). A private note is the best match for
// all of them.
func TestPrivateNotesNeverReachRemoteModel(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetResponder(func(req llmtest.Request) llmtest.Reply {
		if req.API == llmtest.OpenAIEmbeddings {
			return llmtest.Reply{}
		}
		sys := ""
		if len(req.Messages) > 0 {
			sys = req.Messages[0].Content
		}
		var v any
		switch {
		case strings.HasPrefix(sys, "Task: take notes"), strings.HasPrefix(sys, "Task: merge"):
			v = map[string]any{"points": []string{"A starter is fed rye flour and water."}, "terms": []any{}, "quotes": []string{},
				"entities": []any{}, "relations": []any{}}
		case strings.HasPrefix(sys, "Task: plan"):
			v = map[string]any{"title": "Feeding a sourdough starter", "oneLiner": "Feed it daily.",
				"summary": "A sourdough starter is fed rye flour and water every day.", "keyIdeas": []string{"Feed it daily."},
				"tags": []string{}, "concepts": []any{}, "entities": []any{},
				"connections":    []map[string]string{{"page": "Sourdough diary", "reason": "The diary feeds a starter too."}, {"page": "Sourdough", "reason": "About starters."}},
				"contradictions": []any{}}
		case strings.HasPrefix(sys, "You turn a question into search terms"):
			v = map[string]any{"terms": []string{"sourdough starter feeding"}}
		default:
			return llmtest.Reply{Text: "Feed the starter rye flour and water [1]."}
		}
		b, _ := json.Marshal(v)
		return llmtest.Reply{Text: string(b)}
	})

	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	notes := map[string]string{
		"Journal/2026-01-05.md": "# Sourdough diary\n\nMy sourdough starter " + marker + " smelled of acetone today, so I fed the sourdough starter rye flour and water twice.\n",
		"Kitchen/Sourdough.md":  "# Sourdough\n\nA sourdough starter is a culture of yeast kept in flour and water.\n",
	}
	writeNotes(t, vaultDir, notes)
	os.MkdirAll(stateDir, 0o755)
	cfg := "private: [Journal/, Jurnal/]\nask:\n  rewrite: true\ndense:\n  embedder: model\n" +
		"model:\n  provider: openai\n  endpoint: " + srv.URL + "\n  model: fake\n  embed_model: fake-embed\n  remote: \"true\"\n"
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "starter.html")
	os.WriteFile(page, []byte(`<!doctype html><html><head><title>Feeding a sourdough starter</title></head><body><article>
<h1>Feeding a sourdough starter</h1><p>A sourdough starter is fed rye flour and water every day; a starter that smells of acetone is hungry and wants feeding twice.</p>
<p>Keep the sourdough starter warm, feed it at the same hour, and discard half before each feeding so the flour and water can do their work.</p>
</article></body></html>`), 0o644)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir, Queue: true, Engine: engine.Options{InboxPoll: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.EnableDense(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	st, _ := e.Status(ctx)
	if st.Vectors.Embedded == 0 || st.Vectors.Withheld != 1 || st.Vectors.Embedded+st.Vectors.Withheld != st.Vectors.Passages {
		t.Fatalf("vectors %+v, want every passage but the private one embedded", st.Vectors)
	}
	// Status says why coverage is below 100%.
	said := false
	for _, w := range st.Warnings {
		said = said || strings.HasPrefix(w.Path, "Journal/") && strings.Contains(w.Reason, "1 passages are not sent to the embedder")
	}
	if !said {
		t.Errorf("status does not say why vectors cover %d of %d passages: %+v", st.Vectors.Embedded, st.Vectors.Passages, st.Warnings)
	}
	// A private entry that holds no note is a typo until shown otherwise.
	typo := 0
	for _, w := range st.Warnings {
		if strings.Contains(w.Reason, "matches no note") {
			typo++
			if w.Path != "Jurnal/" {
				t.Errorf("warning %+v, want one for Jurnal/ only", w)
			}
		}
	}
	if typo != 1 {
		t.Errorf("status warns of %d private entries matching nothing, want 1: %+v", typo, st.Warnings)
	}

	// ask, with the question rewritten, over hybrid search.
	ans, err := e.Ask(ctx, engine.Question{Text: "How do I feed my sourdough starter when it smells of acetone?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.SaveAnswer(ans); err != nil {
		t.Fatal(err)
	}

	// An answer from the private note alone is extracted here and saved
	// private; once indexed, it is private wherever it lies.
	own, err := e.Ask(ctx, engine.Question{Text: "Why did my sourdough starter smell of acetone?", Scope: search.Filter{Folder: "Journal"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ownPath, err := e.SaveAnswer(own)
	if err != nil {
		t.Fatal(err)
	}

	// A follow-up to that answer, and a question from an MCP client.
	var ids []string
	for _, p := range own.Passages {
		ids = append(ids, p.ID)
	}
	follow := []ask.Turn{{Question: own.Question, Answer: own.Text, Passages: ids}}
	if _, err := e.Ask(ctx, engine.Question{Text: "And how often should I feed the sourdough starter?", History: follow}, nil); err != nil {
		t.Fatal(err)
	}
	viaMCP, err := e.Ask(ctx, engine.Question{Text: "Why does a sourdough starter smell of acetone?", MCP: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(viaMCP.Text, marker) {
		t.Errorf("the answer for an MCP client quotes the private note: %q", viaMCP.Text)
	}

	// The Related panel, for the open private note and for text typed in
	// it: keywords only, and it says so.
	for _, r := range []engine.Related{{Path: "Journal/2026-01-05.md"}, {Text: "my starter " + marker + " smelled of acetone today", From: "Journal/2026-01-05.md"}} {
		notes, warning, err := e.Related(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if len(notes) == 0 || !strings.Contains(warning, "keyword results only") {
			t.Errorf("related %+v: %d notes, warning %q; want keyword results that say why", r, len(notes), warning)
		}
	}

	// ingest, with the private note the best related page.
	done := watchIngest(t, e)
	go e.RunIngest(ctx)
	if _, _, err := e.AddSource(page, false); err != nil {
		t.Fatal(err)
	}
	if ev := awaitIngest(ctx, t, done); ev == nil {
		t.Fatal("ingest did not finish")
	} else if d, ok := ev.(ingest.Done); !ok || !d.Summarised {
		t.Fatalf("ingest: %+v, want a summarised note", ev)
	}
	// The private note itself, named through a link to the vault: the
	// model does not read it, no copy goes to raw/, and the source note
	// made from it is private.
	alias := filepath.Join(dir, "vault-link")
	if err := os.Symlink(vaultDir, alias); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.AddSource(filepath.Join(alias, "Journal", "2026-01-05.md"), false); err != nil {
		t.Fatal(err)
	}
	if ev := awaitIngest(ctx, t, done); ev == nil {
		t.Fatal("ingest did not finish")
	} else if d, ok := ev.(ingest.Done); !ok || d.Summarised {
		t.Fatalf("ingest of the private note: %+v, want an unsummarised note", ev)
	}

	// The saved answers and the private source note, indexed, are kept
	// from the embedder and from a later ask, even once the folder
	// changes and the old answers become sources.
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.EnableDense(ctx); err != nil {
		t.Fatal(err)
	}
	set := e.Settings()
	set.Folder = "Quire2"
	if _, _, err := e.SetSettings(set); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Ask(ctx, engine.Question{Text: "Why did my sourdough starter smell of acetone?"}, nil); err != nil {
		t.Fatal(err)
	}

	kinds := map[string]int{}
	for i, req := range srv.Requests() {
		kind := string(req.API)
		if len(req.Messages) > 0 {
			kind += " " + req.Messages[0].Content[:min(len(req.Messages[0].Content), 16)]
		}
		kinds[kind]++
		var all []string
		for _, m := range req.Messages {
			all = append(all, m.Content)
		}
		all = append(all, req.Input...)
		if s := strings.Join(all, "\n"); strings.Contains(s, marker) || strings.Contains(s, "acetone today") {
			t.Errorf("request %d (%s) carries the private note", i, kind)
		}
	}
	t.Logf("requests: %v", kinds)
	for _, want := range []string{"openai.embeddings", "openai.chat Task: take notes", "openai.chat Task: plan a sou", "openai.chat You answer a que", "openai.chat You turn a quest"} {
		if kinds[want] == 0 {
			t.Errorf("no %q request: %v", want, kinds)
		}
	}
	// A note Quire wrote may hold the private text only with the private
	// mark; nothing else, raw/, index.md and log.md included, quotes or
	// links it, or names the note made from it.
	marked := 0
	filepath.WalkDir(filepath.Join(vaultDir, "Quire"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if n, err := vault.Parse(p, b); err == nil && n.Private && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/raw/") {
			marked++
			return nil
		}
		if strings.Contains(string(b), marker) || strings.Contains(string(b), "Journal/") || strings.Contains(string(b), "Sources/Sourdough diary") {
			t.Errorf("%s quotes, links or names the private note:\n%s", p, b)
		}
		return nil
	})
	if marked != 2 {
		t.Errorf("%d notes Quire wrote carry the private mark, want 2 (%s and the private source's note)", marked, ownPath)
	}
}
