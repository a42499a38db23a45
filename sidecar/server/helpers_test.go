package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/state"
)

// notes is a small real vault.
var notes = map[string]string{
	"Kitchen/Sourdough.md": "# Sourdough\n\nA loaf from flour, water and salt.\n\n## Starter\n\nKeep the starter at full hydration: equal weights of flour and water.\n",
	"Kitchen/Rye bread.md": "# Rye bread\n\nA sourdough loaf of rye flour, water and salt.\n\n## Levain\n\nBuild the levain from a ripe rye starter the evening before baking.\n",
	"Garden/Tomatoes.md":   "# Tomatoes\n\nStake the tomatoes early and water them at the root.\n",
	"Travel/Lisbon.md":     "# Lisbon\n\nTrams climb the hills; pastries with custard at every corner.\n",
	".obsidian/secret.md":  "# Hidden\n\nnot indexed\n",
}

type harness struct {
	t     *testing.T
	vault string
	srv   *Server
	eng   *engine.Engine
	addr  string // host:port
	ix    *index.Index
	setup setup
}

// setup is what a test may change: the engine's options and the server's.
type setup struct {
	engine.Options
	Server Options
}

// start serves a temp vault with the given notes on a real loopback
// listener and waits for the first index pass.
func start(t *testing.T, files map[string]string, tweak ...func(*setup)) *harness {
	t.Helper()
	h := &harness{t: t, vault: t.TempDir()}
	for p, body := range files {
		h.write(p, body)
	}
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(h.vault, st, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	h.ix = ix
	h.setup = setup{Options: engine.Options{Index: ix, Config: config.Default()}, Server: Options{Version: "test"}}
	for _, f := range tweak {
		f(&h.setup)
	}
	h.eng, err = engine.New(h.setup.Options)
	if err != nil {
		t.Fatal(err)
	}
	h.setup.Server.Engine = h.eng
	h.srv, err = New(h.setup.Server)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	h.addr = l.Addr().String()
	served := make(chan error, 1)
	go func() { served <- h.srv.Serve(l) }()
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan error, 1)
	go func() { watched <- h.eng.Watch(ctx) }()
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		if err := h.srv.Shutdown(sctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		cancel()
		<-watched
		h.eng.Close()
		ix.Close()
		st.Close()
	})
	h.waitIndexed()
	return h
}

// waitIndexed waits until the first pass has finished and vectors, if
// any, are computed, as status tells a client.
func (h *harness) waitIndexed() {
	h.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		st, err := h.eng.Status(h.t.Context())
		if err != nil {
			h.t.Fatal(err)
		}
		if !st.LastIndexed.IsZero() && !st.Indexing && st.Vectors.Embedded == st.Vectors.Passages {
			return
		}
	}
	h.t.Fatal("first index pass did not finish")
}

func (h *harness) write(rel, body string) {
	h.t.Helper()
	p := filepath.Join(h.vault, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) url() string { return "ws://" + h.addr + "/" }

// dial connects a protocol client.
func (h *harness) dial() *client.Client {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, h.url(), h.srv.Token(), "test", nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { c.Close() })
	return c
}

// raw opens a websocket without a handshake.
func (h *harness) raw(header http.Header) *websocket.Conn {
	h.t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(h.url(), header)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { ws.Close() })
	return ws
}

// hello sends a valid hello on ws and reads the welcome.
func (h *harness) hello(ws *websocket.Conn) {
	h.t.Helper()
	send(h.t, ws, "", proto.TypeHello, proto.Hello{Protocol: proto.Version, Token: h.srv.Token(), Client: "raw"})
	if env := recv(h.t, ws); env.Type != proto.TypeWelcome {
		h.t.Fatalf("got %s, want welcome", env.Type)
	}
}

func send(t *testing.T, ws *websocket.Conn, id, typ string, payload any) {
	t.Helper()
	env, err := proto.NewEnvelope(id, typ, payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteJSON(env); err != nil {
		t.Fatal(err)
	}
}

// recv reads the next frame that is not an event.
func recv(t *testing.T, ws *websocket.Conn) proto.Envelope {
	t.Helper()
	for {
		_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, data, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var env proto.Envelope
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatalf("frame %s: %v", data, err)
		}
		if m, ok := proto.Lookup(env.Type); ok && m.Kind == proto.KindEvent {
			continue
		}
		return env
	}
}

// wantError checks that env is an error frame with this id and code.
func wantError(t *testing.T, env proto.Envelope, id string, code proto.ErrorCode) proto.Error {
	t.Helper()
	if env.Type != proto.TypeError {
		t.Fatalf("got %s frame %s, want error %s", env.Type, env.Payload, code)
	}
	var pe proto.Error
	if err := env.Decode(&pe); err != nil {
		t.Fatal(err)
	}
	if pe.Code != code || env.ID != id {
		t.Errorf("got error %q (id %q): %s; want %q (id %q)", pe.Code, env.ID, pe.Message, code, id)
	}
	return pe
}

// wantClosed reads until the connection closes and checks the close code
// and that the reason mentions want.
func wantClosed(t *testing.T, ws *websocket.Conn, code int, want string) {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := ws.ReadMessage()
		if err == nil {
			continue
		}
		ce, ok := err.(*websocket.CloseError)
		if !ok {
			t.Fatalf("connection ended with %v, want a close frame %d %q", err, code, want)
		}
		if ce.Code != code || !contains(ce.Text, want) {
			t.Errorf("closed with %d %q, want %d %q", ce.Code, ce.Text, code, want)
		}
		return
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
