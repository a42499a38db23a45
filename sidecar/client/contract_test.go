package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/server"
)

// backend is what the CLI and MCP ask of a vault, in process
// (*engine.Engine) or through a running sidecar (*client.Remote).
type backend interface {
	Status(ctx context.Context) (engine.Status, error)
	Reindex(ctx context.Context, full bool, progress func(engine.Progress)) (engine.Reindexed, error)
	Search(ctx context.Context, q engine.Query) (search.Result, error)
	Note(ctx context.Context, path string, mcp bool) (string, error)
	Ask(ctx context.Context, q engine.Question, onDelta func(string)) (ask.Answer, error)
}

var (
	_ backend = (*engine.Engine)(nil)
	_ backend = (*client.Remote)(nil)
)

const rennet = "# Rennet\n\nRennet curdles milk into curds and whey.\n"

// cheeseVault writes a vault of two notes and a state folder whose
// config turns the embedder off.
func cheeseVault(t *testing.T) (vault, stateDir string) {
	t.Helper()
	vault, stateDir = t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(vault, "rennet.md"), []byte(rennet), 0o644)
	os.WriteFile(filepath.Join(vault, "brie.md"), []byte("# Brie\n\nBrie is a soft cheese.\n"), 0o644)
	if err := os.WriteFile(filepath.Join(stateDir, config.FileName), []byte("dense:\n  embedder: none\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return vault, stateDir
}

// TestContract runs the same assertions against the engine in process and
// against client.Remote talking to a server over a real websocket on the
// same engine: whichever a front end holds, it gets the same answers and
// the same kinds of error.
func TestContract(t *testing.T) {
	v, st := cheeseVault(t)
	e, err := engine.Open(engine.Setup{Vault: v, State: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ctx := t.Context()
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Engine: e, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	cl, err := client.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/", srv.Token(), "contract test", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })

	for name, b := range map[string]backend{"engine": e, "remote": client.NewRemote(cl, 0)} {
		t.Run(name, func(t *testing.T) { contract(t, b) })
	}
}

func contract(t *testing.T, b backend) {
	ctx := t.Context()
	st, err := b.Status(ctx)
	if err != nil || st.Notes != 2 || st.Chunks != 2 || st.LastIndexed.IsZero() {
		t.Errorf("status: %+v, %v; want 2 notes, 2 passages, indexed", st, err)
	}
	r, err := b.Reindex(ctx, false, nil)
	if err != nil || r.Stats.Notes != 2 || r.Full {
		t.Errorf("reindex: %+v, %v; want 2 notes, not full", r, err)
	}
	res, err := b.Search(ctx, engine.Query{Text: "what curdles milk", K: 3})
	if err != nil || len(res.Passages) == 0 {
		t.Fatalf("search: %+v, %v", res, err)
	}
	if p := res.Passages[0]; p.Path != "rennet.md" || p.Breadcrumb() != "Rennet" || rennet[p.Start:p.End] != p.Text {
		t.Errorf("first passage %+v, want rennet.md's own bytes with breadcrumb Rennet", p)
	}
	if res.Channel != search.BM25 {
		t.Errorf("channel %q, want bm25 (no embedder)", res.Channel)
	}
	if text, err := b.Note(ctx, "rennet.md", false); err != nil || text != rennet {
		t.Errorf("note: %q, %v", text, err)
	}
	for _, bad := range []struct {
		path string
		kind engine.Kind
	}{{"missing.md", engine.NotFound}, {"../outside.md", engine.Invalid}} {
		_, err := b.Note(ctx, bad.path, false)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != bad.kind {
			t.Errorf("note %s: %v, want an engine error of kind %v", bad.path, err, bad.kind)
		}
	}
	var streamed strings.Builder
	ans, err := b.Ask(ctx, engine.Question{Text: "What curdles milk?"}, func(d string) { streamed.WriteString(d) })
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	if ans.Refused || len(ans.Citations) == 0 || ans.Citations[0].Path != "rennet.md" || !ans.Grounded {
		t.Errorf("ask: %+v, want a grounded answer citing rennet.md", ans)
	}
	if ans.Question != "What curdles milk?" || ans.Text == "" {
		t.Errorf("ask: question %q, text %q", ans.Question, ans.Text)
	}
}
