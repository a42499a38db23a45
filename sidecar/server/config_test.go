package server

import (
	"context"
	"strings"
	"testing"

	"github.com/quire-app/quire/proto"
)

// TestConfigOverWebsocket: config.get shows the settings (remote "auto"
// when unset, the API key as set but never echoed), config.set applies
// them and lists what needs a restart, a config.set without rank (an
// older plugin) keeps it, and a refusal comes back as invalid_request
// (engine's TestSetSettings* have the settings themselves).
func TestConfigOverWebsocket(t *testing.T) {
	h := start(t, map[string]string{"a.md": "# A\n\nalpha\n"})
	c := h.dial()
	defer c.Close()
	ctx := context.Background()
	var got proto.ConfigResult
	if err := c.Call(ctx, proto.TypeConfigGet, proto.ConfigGet{}, &got); err != nil {
		t.Fatal(err)
	}
	if s := got.Settings; s.Folder != "Quire" || s.Embedder != "builtin" || s.Model.Remote != "auto" || s.Rank == nil || s.Rank.Rerank != "off" {
		t.Fatalf("config.get = %+v, want the defaults", s)
	}
	set := got.Settings
	set.Ignore = []string{"Archive/"}
	set.Model = proto.ModelSettings{Provider: "openai", Endpoint: "http://127.0.0.1:4000", Model: "fake", APIKey: "sk-test"}
	set.Rank = &proto.RankSettings{Rerank: "builtin"}
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: set}, &got); err != nil {
		t.Fatal(err)
	}
	if s := got.Settings; !s.Model.APIKeySet || s.Model.APIKey != "" || s.Model.Model != "fake" || strings.Join(s.Ignore, ",") != "Archive/" || len(got.Restart) != 0 {
		t.Errorf("config.set = %+v, want the settings applied, the key held but not echoed, nothing to restart", got)
	}
	older := got.Settings
	older.Rank = nil
	older.Embedder = "none"
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: older}, &got); err != nil {
		t.Fatal(err)
	}
	if r := got.Settings.Rank; r == nil || r.Rerank != "builtin" || strings.Join(got.Restart, ",") != "embedder" {
		t.Errorf("a config.set without rank: rank %+v, restart %v; want builtin kept, [embedder]", r, got.Restart)
	}
	bad := got.Settings
	bad.Folder = "../elsewhere"
	if err := c.Call(ctx, proto.TypeConfigSet, proto.ConfigSet{Settings: bad}, &proto.ConfigResult{}); err == nil || !strings.Contains(err.Error(), "invalid_request") {
		t.Errorf("folder outside: err = %v, want invalid_request", err)
	}
}
