package server

import (
	"context"
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
