package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
)

// TestHandshakeRefused checks that every bad first frame gets an error
// frame naming the problem, then a policy-violation close with the reason.
func TestHandshakeRefused(t *testing.T) {
	h := start(t, notes)
	tests := []struct {
		name   string
		first  func(ws *websocket.Conn) // nil: send nothing
		code   proto.ErrorCode
		reason string
	}{
		{"no hello", func(ws *websocket.Conn) {
			send(t, ws, "1", proto.TypeStatusGet, proto.StatusGet{})
		}, proto.CodeUnauthorized, "first frame must be hello"},
		{"no token", func(ws *websocket.Conn) {
			send(t, ws, "", proto.TypeHello, proto.Hello{Protocol: proto.Version, Client: "t"})
		}, proto.CodeUnauthorized, "missing token"},
		{"wrong token", func(ws *websocket.Conn) {
			send(t, ws, "", proto.TypeHello, proto.Hello{Protocol: proto.Version, Token: strings.Repeat("0", 32), Client: "t"})
		}, proto.CodeUnauthorized, "wrong token"},
		{"token prefix", func(ws *websocket.Conn) {
			send(t, ws, "", proto.TypeHello, proto.Hello{Protocol: proto.Version, Token: h.srv.Token()[:31], Client: "t"})
		}, proto.CodeUnauthorized, "wrong token"},
		{"a newer client that no longer speaks our protocol", func(ws *websocket.Conn) {
			send(t, ws, "", proto.TypeHello, proto.Hello{Protocol: proto.Version + 2, MinProtocol: proto.Version + 1, Token: h.srv.Token(), Client: "t"})
		}, proto.CodeUnsupportedVersion, "update the sidecar"},
		{"a client from before protocol 1", func(ws *websocket.Conn) {
			send(t, ws, "", proto.TypeHello, proto.Hello{Protocol: proto.MinVersion - 1, Token: h.srv.Token(), Client: "t"})
		}, proto.CodeUnsupportedVersion, "update the client"},
		{"not json", func(ws *websocket.Conn) {
			_ = ws.WriteMessage(websocket.TextMessage, []byte("hello?"))
		}, proto.CodeUnauthorized, "first frame must be hello"},
		{"late hello", nil, proto.CodeUnauthorized, "no hello within 2s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := h.raw(nil)
			began := time.Now()
			if tt.first != nil {
				tt.first(ws)
			}
			wantError(t, recv(t, ws), "", tt.code)
			if tt.first == nil {
				if took := time.Since(began); took < DefaultHelloTimeout-200*time.Millisecond || took > DefaultHelloTimeout+time.Second {
					t.Errorf("refused after %s, want about %s", took, DefaultHelloTimeout)
				}
				// A hello after the deadline does not get in.
				send(t, ws, "", proto.TypeHello, proto.Hello{Protocol: proto.Version, Token: h.srv.Token()})
			}
			wantClosed(t, ws, websocket.ClosePolicyViolation, tt.reason)
		})
	}
}

// TestHandshakePairs welcomes clients older and newer than the sidecar
// whose protocol ranges overlap its own, at the newest version both speak,
// and lists the requests it answers so that a newer client can tell what
// an older sidecar lacks.
func TestHandshakePairs(t *testing.T) {
	h := start(t, notes)
	tests := []struct {
		name  string
		hello proto.Hello
	}{
		{"a client from before ranges (one version, no minProtocol)", proto.Hello{Protocol: proto.Version}},
		{"a client of this build", proto.Hello{Protocol: proto.Version, MinProtocol: proto.MinVersion}},
		{"a newer client that still speaks this version", proto.Hello{Protocol: proto.Version + 3, MinProtocol: proto.MinVersion}},
	}
	for _, tt := range tests {
		ws := h.raw(nil)
		tt.hello.Token, tt.hello.Client = h.srv.Token(), "t"
		send(t, ws, "", proto.TypeHello, tt.hello)
		env := recv(t, ws)
		var w proto.Welcome
		if env.Type != proto.TypeWelcome || env.Decode(&w) != nil {
			t.Errorf("%s: got %s %s, want welcome", tt.name, env.Type, env.Payload)
			continue
		}
		if w.Protocol != proto.Version {
			t.Errorf("%s: welcome protocol %d, want %d", tt.name, w.Protocol, proto.Version)
		}
		if !slices.Equal(w.Requests, proto.Requests()) {
			t.Errorf("%s: welcome requests %v, want %v", tt.name, w.Requests, proto.Requests())
		}
		send(t, ws, "1", proto.TypeStatusGet, proto.StatusGet{})
		if env := recv(t, ws); env.Type != proto.TypeStatusResult {
			t.Errorf("%s: status.get answered %s %s", tt.name, env.Type, env.Payload)
		}
		ws.Close()
	}
}

func TestOrigin(t *testing.T) {
	h := start(t, notes)
	tests := []struct {
		origin []string // nil: no header
		ok     bool
	}{
		{nil, true},
		{[]string{ObsidianOrigin}, true},
		{[]string{"https://evil.example"}, false},
		{[]string{"null"}, false},
		{[]string{"http://127.0.0.1:" + strings.Split(h.addr, ":")[1]}, false},
		{[]string{"app://obsidian.md.evil.example"}, false},
		{[]string{ObsidianOrigin, "https://evil.example"}, false},
	}
	for _, tt := range tests {
		header := http.Header{}
		if tt.origin != nil {
			header["Origin"] = tt.origin
		}
		ws, resp, err := websocket.DefaultDialer.Dial(h.url(), header)
		if !tt.ok {
			if err == nil {
				ws.Close()
				t.Errorf("origin %q: connected, want refused", tt.origin)
			} else if resp == nil || resp.StatusCode != http.StatusForbidden {
				t.Errorf("origin %q: got %v, want HTTP 403", tt.origin, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("origin %q: %v, want accepted", tt.origin, err)
			continue
		}
		h.hello(ws)
		ws.Close()
	}
}

func TestTooLarge(t *testing.T) {
	h := start(t, notes, func(o *setup) { o.Server.FrameLimit = 4 << 10 })
	ws := h.raw(nil)
	h.hello(ws)

	big := proto.SearchQuery{Query: strings.Repeat("flour ", 1000)}
	send(t, ws, "7", proto.TypeSearchQuery, big)
	wantError(t, recv(t, ws), "7", proto.CodeTooLarge)

	// The connection stays usable.
	send(t, ws, "8", proto.TypeSearchQuery, proto.SearchQuery{Query: "flour"})
	if env := recv(t, ws); env.Type != proto.TypeSearchResult || env.ID != "8" {
		t.Fatalf("after too_large: got %s %s, want search.result 8", env.Type, env.Payload)
	}

	// Far over the limit, the frame is not read to its end: the
	// connection closes with 1009.
	huge, _ := proto.NewEnvelope("9", proto.TypeSearchQuery, proto.SearchQuery{Query: strings.Repeat("flour ", 8000)})
	_ = ws.WriteJSON(huge) // the server may hang up before the end
	wantClosed(t, ws, websocket.CloseMessageTooBig, "")
}

// TestInvalidRequests sends broken frames on one connection while another
// client keeps searching: each broken frame gets invalid_request, and
// neither connection stops being served.
func TestInvalidRequests(t *testing.T) {
	h := start(t, notes)
	other := h.dial()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var otherErr error
	var otherCalls int
	go func() {
		defer wg.Done()
		// At least one call, however late the scheduler runs this
		// goroutine on a loaded machine; then until stopped.
		for {
			if _, err := other.Search(t.Context(), proto.SearchQuery{Query: "tomatoes"}); err != nil {
				otherErr = err
				return
			}
			otherCalls++
			select {
			case <-stop:
				return
			default:
			}
		}
	}()

	ws := h.raw(nil)
	h.hello(ws)
	tests := []struct {
		name  string
		frame string
		id    string
	}{
		{"not json", `{"id":"1","type":`, "1"},
		{"not json, no id", `{"type":`, ""},
		{"json but id readable", `{"id":"2","type":"search.query","payload":{]}`, "2"},
		{"array", `[1,2,3]`, ""},
		{"unknown type", `{"id":"3","type":"vault.delete","payload":{}}`, "3"},
		{"reply as request", `{"id":"4","type":"search.result","payload":{}}`, "4"},
		{"event as request", `{"id":"5","type":"index.changed","payload":{}}`, "5"},
		{"no id", `{"type":"status.get","payload":{}}`, ""},
		{"wrong field type", `{"id":"6","type":"search.query","payload":{"k":"three"}}`, "6"},
		{"payload not object", `{"id":"7","type":"search.query","payload":5}`, "7"},
		{"bad channel", `{"id":"8","type":"search.query","payload":{"query":"x","channel":"psychic"}}`, "8"},
		{"negative k", `{"id":"9","type":"search.query","payload":{"query":"x","k":-1}}`, "9"},
		{"hello again", `{"type":"hello","payload":{"protocol":1}}`, ""},
		{"id too long", `{"id":"` + strings.Repeat("x", 200) + `","type":"status.get"}`, ""},
	}
	for _, tt := range tests {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(tt.frame)); err != nil {
			t.Fatal(err)
		}
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, recv(t, ws), tt.id, proto.CodeInvalidRequest)
		})
	}
	if err := ws.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	wantError(t, recv(t, ws), "", proto.CodeInvalidRequest)

	// The same connection still answers.
	send(t, ws, "ok", proto.TypeStatusGet, proto.StatusGet{})
	if env := recv(t, ws); env.Type != proto.TypeStatusResult || env.ID != "ok" {
		t.Fatalf("got %s, want status.result", env.Type)
	}
	close(stop)
	wg.Wait()
	if otherErr != nil || otherCalls == 0 {
		t.Errorf("other client: %d calls, error %v", otherCalls, otherErr)
	}
}

// TestSlowClient checks that a client that stops reading is dropped rather
// than holding back events and replies for the others.
func TestSlowClient(t *testing.T) {
	h := start(t, notes)
	slow := h.raw(nil)
	h.hello(slow)
	fast := h.dial()
	payload := proto.SidecarWarning{Message: strings.Repeat("x", 32<<10)}
	// Broadcast until the slow client's socket buffers and queue are full
	// and it is dropped. How many frames that takes depends on the
	// kernel's buffers, and how long on the machine (the race detector
	// slows it down many times), so there is no deadline: go test's
	// timeout catches a client never dropped. What is bounded is a wait:
	// a broadcast that waited for the slow client would take its write
	// deadline.
	for {
		began := time.Now()
		h.srv.broadcast(proto.TypeSidecarWarning, payload)
		if took := time.Since(began); took >= writeWait {
			t.Fatalf("broadcast waited %s for a slow client", took)
		}
		h.srv.mu.Lock()
		n := len(h.srv.conns)
		h.srv.mu.Unlock()
		if n == 1 {
			break
		}
	}
	if _, err := fast.Status(t.Context()); err != nil {
		t.Fatalf("fast client after the slow one was dropped: %v", err)
	}
}

func TestShutdown(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	// A request that arrives while the server shuts down gets not_ready.
	h.srv.mu.Lock()
	h.srv.closing = true
	h.srv.mu.Unlock()
	_, err := c.Status(t.Context())
	if pe, ok := err.(*proto.Error); !ok || pe.Code != proto.CodeNotReady {
		t.Errorf("request during shutdown: got %v, want not_ready", err)
	}
	h.srv.mu.Lock()
	h.srv.closing = false
	h.srv.mu.Unlock()

	ws := h.raw(nil)
	h.hello(ws)
	// A client still in its handshake is closed too, not waited for.
	silent := h.raw(nil)
	done := make(chan error, 1)
	go func() { done <- h.srv.Shutdown(t.Context()) }()
	wantClosed(t, ws, websocket.CloseGoingAway, "sidecar shutting down")
	wantClosed(t, silent, websocket.CloseGoingAway, "sidecar shutting down")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Shutdown did not return")
	}
	<-c.Done()
	if _, _, err := websocket.DefaultDialer.Dial(h.url(), nil); err == nil {
		t.Error("connected after Shutdown")
	}
}

// TestShutdownFinishesInFlight holds a request inside its handler while
// Shutdown starts: requests that arrive meanwhile get not_ready, the held
// one still gets its reply, and only then do connections close.
func TestShutdownFinishesInFlight(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	h := start(t, notes, func(o *setup) {})
	h.srv.hook = func(typ string) {
		if typ == proto.TypeNoteGet {
			close(entered)
			<-release
		}
	}
	held := h.dial()
	other := h.dial()
	got := make(chan error, 1)
	go func() {
		_, err := call[proto.NoteResult](t, held, proto.TypeNoteGet, proto.NoteGet{Path: "Garden/Tomatoes.md"})
		got <- err
	}()
	<-entered
	done := make(chan error, 1)
	go func() { done <- h.srv.Shutdown(t.Context()) }()
	for {
		h.srv.mu.Lock()
		closing := h.srv.closing
		h.srv.mu.Unlock()
		if closing {
			break
		}
		time.Sleep(time.Millisecond)
	}
	_, err := other.Status(t.Context())
	wantCode(t, err, proto.CodeNotReady)
	select {
	case <-done:
		t.Fatal("Shutdown returned while a request was in flight")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-got; err != nil {
		t.Errorf("in-flight request: %v, want its reply", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-held.Done()
	<-other.Done()
}

func TestFrameID(t *testing.T) {
	tests := []struct {
		prefix string
		want   string
	}{
		{`{"id":"7","type":"search.query","payload":{"query":"aaaa`, "7"},
		{`{"type":"search.query","id":"8","payload":{"query":"aaaa`, "8"},
		{`{"type":"search.query","payload":{"query":"aaaa`, ""},
		{`[`, ""},
		{`{"id":7}`, ""},
		{``, ""},
	}
	for _, tt := range tests {
		if got := frameID([]byte(tt.prefix)); got != tt.want {
			t.Errorf("frameID(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
}

// TestWorkBoundAcrossConnections: with MaxWork 1, a search from a second
// connection waits while one from the first is being worked on, then is
// answered; nothing fails.
func TestWorkBoundAcrossConnections(t *testing.T) {
	h := start(t, notes, func(o *setup) { o.Server.MaxWork = 1 })
	var active, peak atomic.Int32
	entered := make(chan struct{}, 2)
	release := make(chan struct{})
	h.srv.hook = func(typ string) {
		if typ != proto.TypeSearchQuery {
			return
		}
		n := active.Add(1)
		if n > peak.Load() {
			peak.Store(n)
		}
		entered <- struct{}{}
		<-release
		active.Add(-1)
	}
	a, b := h.dial(), h.dial()
	errs := make(chan error, 2)
	for _, c := range []*client.Client{a, b} {
		go func() {
			_, err := c.Search(t.Context(), proto.SearchQuery{Query: "sourdough", K: 100})
			errs <- err
		}()
	}
	<-entered
	// The other search is either waiting for the slot (bound held) or
	// in the hook too (no bound): wait until one of the two is seen.
	for h.srv.waiting.Load() == 0 && peak.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	if p := peak.Load(); p > 1 {
		t.Errorf("%d searches worked on at once, want at most MaxWork 1", p)
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestWelcomeProvesTheSecret: a hello with a nonce gets welcome's proof
// that the sidecar knows the state folder's secret, which the token (sent
// in every hello, so known to whatever listens on the port) could not
// give; the secret itself never crosses the wire.
func TestWelcomeProvesTheSecret(t *testing.T) {
	const secret = "0123456789abcdef0123456789abcdef"
	h := start(t, notes, func(s *setup) { s.Server.Secret = secret })
	ws := h.raw(nil)
	send(t, ws, "", proto.TypeHello, proto.Hello{Protocol: proto.Version, Token: h.srv.Token(), Client: "raw", Nonce: "n1"})
	env := recv(t, ws)
	var w proto.Welcome
	if err := env.Decode(&w); err != nil || env.Type != proto.TypeWelcome {
		t.Fatalf("got %s %s", env.Type, env.Payload)
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("quire welcome n1"))
	if want := hex.EncodeToString(m.Sum(nil)); w.Proof != want {
		t.Errorf("proof %q, want %q", w.Proof, want)
	}
	if strings.Contains(string(env.Payload), secret) {
		t.Error("the welcome carries the secret")
	}
}
