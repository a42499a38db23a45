package engine_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
	"github.com/quire-app/quire/sidecar/search"
)

// withState keeps the engine's settings in stateDir's config.yaml.
func withState(stateDir string) func(*engine.Options) {
	return func(o *engine.Options) { o.StateDir = stateDir }
}

// TestSetSettingsAppliesWithoutARestart: a new model answers the next
// question, a new ignore list takes its folder out of the index, and
// config.yaml keeps both (its comments too, the key never); a changed
// embedder waits for a restart.
func TestSetSettingsAppliesWithoutARestart(t *testing.T) {
	fake := llmtest.New(t)
	fake.SetDefault(llmtest.Reply{Text: `{"answer": "Feed it once a day [1].", "citations": [1], "notFound": false}`})
	stateDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(stateDir, config.FileName), []byte("# kept\nsearch:\n  k: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, map[string]string{
		"starter.md":         "# Sourdough starter\n\nFeed the starter once a day at room temperature.\n",
		"Archive/starter.md": "# Old starter notes\n\nFeed the starter twice a day, said the old book.\n",
	}, withState(stateDir))
	ctx := t.Context()

	set := r.e.Settings()
	if set.Folder != "Quire" || set.Embedder != "builtin" || set.Model.Provider != "" {
		t.Fatalf("settings = %+v, want the defaults", set)
	}
	if res, err := r.e.Search(ctx, engine.Query{Text: "twice", Channel: search.BM25}); err != nil || len(res.Passages) == 0 || res.Passages[0].Path != "Archive/starter.md" {
		t.Fatalf("before SetSettings, Archive/starter.md is not found: %+v %v", res, err)
	}
	set.Ignore = []string{"Archive/"}
	set.Model = llm.Config{Provider: "openai", Endpoint: fake.URL, Model: "fake", APIKey: "sk-test"}
	if _, restart, err := r.e.SetSettings(set); err != nil || len(restart) != 0 {
		t.Fatalf("SetSettings: restart %v, %v; want nothing to restart", restart, err)
	}

	// The new model answers the next question.
	ans, err := r.e.Ask(ctx, engine.Question{Text: "How often do I feed the starter?"}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Extracted || ans.Model != "openai/fake" {
		t.Errorf("ask after SetSettings: extracted=%v model=%q, want the configured model", ans.Extracted, ans.Model)
	}
	if auth := fake.Last(t).Header.Get("Authorization"); auth != "Bearer sk-test" {
		t.Errorf("model got Authorization %q, want the key from SetSettings", auth)
	}

	// The ignored folder leaves the index.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := r.e.Search(ctx, engine.Query{Text: "twice a day", Channel: search.BM25})
		if err != nil {
			t.Fatal(err)
		}
		archived := false
		for _, p := range res.Passages {
			archived = archived || strings.HasPrefix(p.Path, "Archive/")
		}
		if !archived {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Archive/ still searchable after SetSettings ignored it: %+v", res.Passages)
		}
	}

	data, err := os.ReadFile(filepath.Join(stateDir, config.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# kept", "k: 7", "Archive/", "provider: openai"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "sk-test") {
		t.Errorf("config.yaml holds the API key:\n%s", data)
	}

	set.Embedder = "none"
	if _, restart, err := r.e.SetSettings(set); err != nil || strings.Join(restart, ",") != "embedder" {
		t.Errorf("restart = %v, %v; want [embedder]", restart, err)
	}
}

// TestSetSettingsRefusesBadSettings: a folder outside the vault, in a dot
// folder, over a file or over the user's notes, an unknown embedder or
// provider, an empty ignore entry are invalid and change nothing; the
// user's folder is refused naming a note of theirs.
func TestSetSettingsRefusesBadSettings(t *testing.T) {
	r := run(t, map[string]string{"a.md": "# A\n\nalpha\n", "Kitchen/log.md": "# Cooked\n", "Kitchen/Inbox/recipe.md": "# Bread\n"})
	before := r.e.Settings()
	for name, change := range map[string]func(*engine.Settings){
		"folder outside":   func(s *engine.Settings) { s.Folder = "../elsewhere" },
		"dot folder":       func(s *engine.Settings) { s.Folder = ".hidden" },
		"unknown embedder": func(s *engine.Settings) { s.Embedder = "magic" },
		"unknown provider": func(s *engine.Settings) { s.Model.Provider = "skynet" },
		"empty ignore":     func(s *engine.Settings) { s.Ignore = []string{" "} },
		"NUL in folder":    func(s *engine.Settings) { s.Folder = "Quire\x00x" },
		"obsidian folder":  func(s *engine.Settings) { s.Folder = "Kitchen/.obsidian" },
		"existing file":    func(s *engine.Settings) { s.Folder = "a.md" },
		"long folder":      func(s *engine.Settings) { s.Folder = strings.Repeat("k", 5000) },
		"leading space":    func(s *engine.Settings) { s.Folder = " /etc" },
		"user's folder":    func(s *engine.Settings) { s.Folder = "Kitchen" },
	} {
		s := r.e.Settings()
		change(&s)
		_, _, err := r.e.SetSettings(s)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.Invalid {
			t.Errorf("%s: err = %v, want invalid", name, err)
		}
	}
	if after := r.e.Settings(); after.Folder != before.Folder || after.Embedder != before.Embedder {
		t.Errorf("a refused SetSettings changed the settings: %+v", after)
	}
	s := r.e.Settings()
	s.Folder = "Kitchen"
	if _, _, err := r.e.SetSettings(s); err == nil || !strings.Contains(err.Error(), "Kitchen/log.md") {
		t.Errorf("folder Kitchen: %v, want an error naming Kitchen/log.md", err)
	}
}

// TestSetSettingsRemote: model.remote is kept in config.yaml; settings
// without it keep it, so a loopback proxy the user called remote never
// turns local; a bad value is refused.
func TestSetSettingsRemote(t *testing.T) {
	stateDir := t.TempDir()
	r := run(t, map[string]string{"a.md": "# A\n\nText.\n"}, withState(stateDir))
	set := r.e.Settings()
	set.Model = llm.Config{Provider: "openai", Endpoint: "http://127.0.0.1:4000", Model: "gpt-4.1-mini", Remote: "true"}
	if _, _, err := r.e.SetSettings(set); err != nil {
		t.Fatal(err)
	}
	set.Model.Remote = ""
	got, _, err := r.e.SetSettings(set)
	if err != nil || got.Model.Remote != "true" {
		t.Errorf("remote %q, %v after settings without it, want true kept", got.Model.Remote, err)
	}
	if data, _ := os.ReadFile(filepath.Join(stateDir, config.FileName)); !strings.Contains(string(data), `remote: "true"`) {
		t.Errorf("config.yaml lacks remote:\n%s", data)
	}
	set.Model.Remote = "maybe"
	if _, _, err := r.e.SetSettings(set); err == nil || !strings.Contains(err.Error(), "remote") {
		t.Errorf("remote maybe: %v, want an error naming remote", err)
	}
}

// TestSetSettingsRank: a reranker endpoint reaches the searcher at once
// and config.yaml: with a TEI fake that prefers the passage naming "rye"
// the results come in its order; a bad mode or provider is refused and
// changes nothing.
func TestSetSettingsRank(t *testing.T) {
	calls := 0
	tei := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Texts []string `json:"texts"`
		}
		if r.URL.Path != "/rerank" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		calls++
		type scored struct {
			Index int     `json:"index"`
			Score float64 `json:"score"`
		}
		out := make([]scored, len(body.Texts))
		for i, text := range body.Texts {
			out[i] = scored{i, 0.1}
			if strings.Contains(text, "rye") {
				out[i].Score = 0.9
			}
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer tei.Close()
	stateDir := t.TempDir()
	r := run(t, map[string]string{
		"wheat.md": "# Wheat starter\n\nFeed the starter flour and water, flour and water, every day.\n",
		"rye.md":   "# Rye\n\nA rye starter wants flour and water too.\n",
	}, withState(stateDir))
	set := r.e.Settings()
	if set.Rerank != "off" || set.Reranker.Provider != "" {
		t.Fatalf("rank = %q %+v, want off with no reranker", set.Rerank, set.Reranker)
	}
	first := func() string {
		t.Helper()
		res, err := r.e.Search(t.Context(), engine.Query{Text: "starter flour water", Channel: search.BM25})
		if err != nil || len(res.Passages) < 2 {
			t.Fatalf("search: %+v %v", res, err)
		}
		return res.Passages[0].Path
	}
	if p := first(); p != "wheat.md" {
		t.Fatalf("before SetSettings the first is %s, want wheat.md", p)
	}
	set.Rerank = "endpoint"
	set.Reranker = config.Rerank{Provider: "tei", Endpoint: tei.URL, Remote: "false"}
	got, _, err := r.e.SetSettings(set)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rerank != "endpoint" || got.Reranker.Endpoint != tei.URL {
		t.Errorf("SetSettings answered rank %q %+v", got.Rerank, got.Reranker)
	}
	if p := first(); p != "rye.md" || calls == 0 {
		t.Errorf("after SetSettings the first is %s (%d reranker calls), want rye.md by the reranker", p, calls)
	}
	if data, _ := os.ReadFile(filepath.Join(stateDir, config.FileName)); !strings.Contains(string(data), "rerank: endpoint") || !strings.Contains(string(data), tei.URL) {
		t.Errorf("config.yaml does not keep the rank:\n%s", data)
	}
	for name, bad := range map[string]func(*engine.Settings){
		"mode":     func(s *engine.Settings) { s.Rerank = "magic" },
		"provider": func(s *engine.Settings) { s.Reranker = config.Rerank{Provider: "skynet"} },
		"no model": func(s *engine.Settings) { s.Reranker = config.Rerank{Provider: "cohere"} },
	} {
		s := r.e.Settings()
		bad(&s)
		if _, _, err := r.e.SetSettings(s); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if p := first(); p != "rye.md" {
		t.Errorf("a refused SetSettings changed the ranking: first %s", p)
	}
}
