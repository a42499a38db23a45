package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/server"
)

// TestRebuildWithEmbedderDown: a full reindex through a sidecar whose
// embedder has gone down returns once the pass is done, saying the
// vectors are not up to date, instead of waiting for vectors that will
// not come until the caller gives up.
func TestRebuildWithEmbedderDown(t *testing.T) {
	var down atomic.Bool
	emb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() || r.URL.Path != "/api/embed" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var req struct{ Input []string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		out := make([][]float32, len(req.Input))
		for i, s := range req.Input {
			out[i] = []float32{float32(len(s)), 1, 0, 0}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
	}))
	defer emb.Close()
	v := t.TempDir()
	os.WriteFile(filepath.Join(v, "rennet.md"), []byte(rennet), 0o644)
	st := t.TempDir()
	cfg := "dense:\n  embedder: model\nmodel:\n  provider: ollama\n  endpoint: " + emb.URL + "\n  embed_model: stand-in\n  timeout: 5s\n"
	if err := os.WriteFile(filepath.Join(st, config.FileName), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Setup{Vault: v, State: st})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := e.EnableDense(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := e.Reindex(ctx, false, nil); err != nil || r.Vectors.Embedded != 1 {
		t.Fatalf("first pass: %+v, %v; want 1 vector", r.Vectors, err)
	}
	wctx, stopWatch := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() { watched <- e.Watch(wctx) }()
	defer func() { stopWatch(); <-watched }()
	srv, err := server.New(server.Options{Engine: e, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	cl, err := client.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/", srv.Token(), "rebuild test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	down.Store(true)
	os.WriteFile(filepath.Join(v, "brie.md"), []byte("# Brie\n\nBrie is a soft cheese.\n"), 0o644)
	r, err := client.NewRemote(cl, 0).Reindex(ctx, true, nil)
	if err != nil {
		t.Fatalf("full reindex with the embedder down: %v", err)
	}
	if r.Stats.Notes != 2 || r.VectorsErr == nil {
		t.Errorf("reindex: notes %d, vectors %+v, error %v; want 2 notes and the vectors said to be behind", r.Stats.Notes, r.Vectors, r.VectorsErr)
	}
}
