package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

func TestConfigSetAppliesWithoutARestart(t *testing.T) {
	fake := llmtest.New(t)
	fake.SetDefault(llmtest.Reply{Text: `{"answer": "Feed it once a day [1].", "citations": [1], "notFound": false}`})
	stateDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(stateDir, config.FileName), []byte("# kept\nsearch:\n  k: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := start(t, map[string]string{
		"starter.md":         "# Sourdough starter\n\nFeed the starter once a day at room temperature.\n",
		"Archive/starter.md": "# Old starter notes\n\nFeed the starter twice a day, said the old book.\n",
	}, func(o *setup) { o.StateDir = stateDir })
	c := h.dial()
	defer c.Close()
	ctx := context.Background()

	var got proto.ConfigResult
	if err := c.Call(ctx, proto.TypeConfigGet, proto.ConfigGet{}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Settings.Folder != "Quire" || got.Settings.Embedder != "builtin" || got.Settings.Model.Provider != "" {
		t.Fatalf("config.get = %+v, want the defaults", got.Settings)
	}

	if res, err := c.Search(ctx, proto.SearchQuery{Query: "twice", Channel: proto.ChannelBM25}); err != nil || len(res.Passages) == 0 || res.Passages[0].Path != "Archive/starter.md" {
		t.Fatalf("before config.set, Archive/starter.md is not found: %+v %v", res, err)
	}
	set := got.Settings
	set.Ignore = []string{"Archive/"}
	set.Model = proto.ModelSettings{Provider: "openai", Endpoint: fake.URL, Model: "fake", APIKey: "sk-test"}
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: set}, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Settings.Model.APIKeySet || got.Settings.Model.APIKey != "" || len(got.Restart) != 0 {
		t.Errorf("config.set = %+v, want the key held but not echoed, nothing to restart", got)
	}

	// The new model answers the next question.
	var done proto.AskDone
	if err := c.Stream(ctx, proto.TypeAskQuery, proto.AskQuery{Question: "How often do I feed the starter?"}, func(proto.Envelope) error { return nil }, &done); err != nil {
		t.Fatal(err)
	}
	if done.Extracted || done.Model != "openai/fake" {
		t.Errorf("ask after config.set: extracted=%v model=%q, want the configured model", done.Extracted, done.Model)
	}
	if auth := fake.Last(t).Header.Get("Authorization"); auth != "Bearer sk-test" {
		t.Errorf("model got Authorization %q, want the key from config.set", auth)
	}

	// The ignored folder leaves the index.
	deadline := time.Now().Add(5 * time.Second)
	for {
		res, err := c.Search(ctx, proto.SearchQuery{Query: "twice a day", Channel: proto.ChannelBM25})
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
			t.Fatalf("Archive/ still searchable after config.set ignored it: %+v", res.Passages)
		}
		time.Sleep(20 * time.Millisecond)
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
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: set}, &got); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Restart, ",") != "embedder" {
		t.Errorf("restart = %v, want [embedder]", got.Restart)
	}
}

func TestConfigSetRefusesBadSettings(t *testing.T) {
	h := start(t, map[string]string{"a.md": "# A\n\nalpha\n", "Kitchen/log.md": "# Cooked\n", "Kitchen/Inbox/recipe.md": "# Bread\n"})
	c := h.dial()
	defer c.Close()
	ctx := context.Background()
	var got proto.ConfigResult
	if err := c.Call(ctx, proto.TypeConfigGet, proto.ConfigGet{}, &got); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*proto.Settings){
		"folder outside":   func(s *proto.Settings) { s.Folder = "../elsewhere" },
		"dot folder":       func(s *proto.Settings) { s.Folder = ".hidden" },
		"unknown embedder": func(s *proto.Settings) { s.Embedder = "magic" },
		"unknown provider": func(s *proto.Settings) { s.Model.Provider = "skynet" },
		"empty ignore":     func(s *proto.Settings) { s.Ignore = []string{" "} },
		"NUL in folder":    func(s *proto.Settings) { s.Folder = "Quire\x00x" },
		"obsidian folder":  func(s *proto.Settings) { s.Folder = "Kitchen/.obsidian" },
		"existing file":    func(s *proto.Settings) { s.Folder = "a.md" },
		"long folder":      func(s *proto.Settings) { s.Folder = strings.Repeat("k", 5000) },
		"leading space":    func(s *proto.Settings) { s.Folder = " /etc" },
		"user's folder":    func(s *proto.Settings) { s.Folder = "Kitchen" },
	} {
		s := got.Settings
		change(&s)
		err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: s}, &proto.ConfigResult{})
		if err == nil || !strings.Contains(err.Error(), "invalid_request") {
			t.Errorf("%s: err = %v, want invalid_request", name, err)
		}
	}
	var after proto.ConfigResult
	if err := c.Call(ctx, proto.TypeConfigGet, proto.ConfigGet{}, &after); err != nil {
		t.Fatal(err)
	}
	if after.Settings.Folder != "Quire" || after.Settings.Embedder != "builtin" {
		t.Errorf("a refused config.set changed the settings: %+v", after.Settings)
	}
	s := got.Settings
	s.Folder = "Kitchen"
	err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: s}, &proto.ConfigResult{})
	if err == nil || !strings.Contains(err.Error(), "Kitchen/log.md") {
		t.Errorf("folder Kitchen: %v, want an error naming Kitchen/log.md", err)
	}
}

// TestConfigSetRemote: model.remote is set through config.set and kept in
// config.yaml; a config.set without it (an older plugin) keeps it, so a
// loopback proxy the user called remote never turns local; a bad value is
// refused.
func TestConfigSetRemote(t *testing.T) {
	stateDir := t.TempDir()
	h := start(t, map[string]string{"a.md": "# A\n\nText.\n"}, func(o *setup) { o.StateDir = stateDir })
	c := h.dial()
	defer c.Close()
	ctx := context.Background()
	var got proto.ConfigResult
	if err := c.Call(ctx, proto.TypeConfigGet, proto.ConfigGet{}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Settings.Model.Remote != "auto" {
		t.Errorf("remote %q, want auto by default", got.Settings.Model.Remote)
	}
	set := got.Settings
	set.Model = proto.ModelSettings{Provider: "openai", Endpoint: "http://127.0.0.1:4000", Model: "gpt-4.1-mini", Remote: "true"}
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: set}, &got); err != nil {
		t.Fatal(err)
	}
	set.Model.Remote = ""
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: set}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Settings.Model.Remote != "true" {
		t.Errorf("remote %q after a config.set without it, want true kept", got.Settings.Model.Remote)
	}
	if data, _ := os.ReadFile(filepath.Join(stateDir, config.FileName)); !strings.Contains(string(data), `remote: "true"`) {
		t.Errorf("config.yaml lacks remote:\n%s", data)
	}
	set.Model.Remote = "maybe"
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: set}, &got); err == nil || !strings.Contains(err.Error(), "remote") {
		t.Errorf("remote maybe: %v, want an error naming remote", err)
	}
}

// TestConfigSetRank: config.set's rank reaches the searcher at once and
// config.yaml: with a reranker endpoint (a TEI fake that prefers the
// passage naming "rye") the results come in its order; a config.set
// without rank (an older plugin) keeps it; a bad mode or provider is
// refused and changes nothing.
func TestConfigSetRank(t *testing.T) {
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
	h := start(t, map[string]string{
		"wheat.md": "# Wheat starter\n\nFeed the starter flour and water, flour and water, every day.\n",
		"rye.md":   "# Rye\n\nA rye starter wants flour and water too.\n",
	}, func(o *setup) { o.StateDir = stateDir })
	c := h.dial()
	defer c.Close()
	ctx := context.Background()
	var got proto.ConfigResult
	if err := c.Call(ctx, proto.TypeConfigGet, proto.ConfigGet{}, &got); err != nil {
		t.Fatal(err)
	}
	if r := got.Settings.Rank; r == nil || r.Rerank != "off" || r.Reranker.Provider != "" {
		t.Fatalf("config.get rank = %+v, want off with no reranker", r)
	}
	first := func() string {
		t.Helper()
		res, err := c.Search(ctx, proto.SearchQuery{Query: "starter flour water", Channel: proto.ChannelBM25})
		if err != nil || len(res.Passages) < 2 {
			t.Fatalf("search: %+v %v", res, err)
		}
		return res.Passages[0].Path
	}
	if p := first(); p != "wheat.md" {
		t.Fatalf("before config.set the first is %s, want wheat.md", p)
	}
	set := got.Settings
	set.Rank = &proto.RankSettings{Rerank: "endpoint", Reranker: proto.RerankerSettings{Provider: "tei", Endpoint: tei.URL, Remote: "false"}}
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: set}, &got); err != nil {
		t.Fatal(err)
	}
	if r := got.Settings.Rank; r == nil || r.Rerank != "endpoint" || r.Reranker.Endpoint != tei.URL {
		t.Errorf("config.set answered rank %+v", r)
	}
	if p := first(); p != "rye.md" || calls == 0 {
		t.Errorf("after config.set the first is %s (%d reranker calls), want rye.md by the reranker", p, calls)
	}
	if data, _ := os.ReadFile(filepath.Join(stateDir, config.FileName)); !strings.Contains(string(data), "rerank: endpoint") || !strings.Contains(string(data), tei.URL) {
		t.Errorf("config.yaml does not keep the rank:\n%s", data)
	}
	older := got.Settings
	older.Rank = nil
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: older}, &got); err != nil {
		t.Fatal(err)
	}
	if r := got.Settings.Rank; r == nil || r.Rerank != "endpoint" {
		t.Errorf("a config.set without rank changed it: %+v", r)
	}
	for name, bad := range map[string]proto.RankSettings{
		"mode":     {Rerank: "magic"},
		"provider": {Rerank: "endpoint", Reranker: proto.RerankerSettings{Provider: "skynet"}},
		"no model": {Rerank: "endpoint", Reranker: proto.RerankerSettings{Provider: "cohere"}},
	} {
		s := got.Settings
		s.Rank = &bad
		if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: s}, &proto.ConfigResult{}); err == nil || !strings.Contains(err.Error(), "invalid_request") {
			t.Errorf("%s: err = %v, want invalid_request", name, err)
		}
	}
	if p := first(); p != "rye.md" {
		t.Errorf("a refused config.set changed the ranking: first %s", p)
	}
}
