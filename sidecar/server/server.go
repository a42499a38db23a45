// Package server serves one vault's index to the Obsidian plugin, the CLI
// and tests over a websocket on 127.0.0.1, speaking the protocol defined in
// proto/. It is the only package that maps domain types to wire messages.
//
// A Server is a front end over an [engine.Engine]: [Server.Serve] answers
// connections (handshake, requests, the engine's events pushed), and
// [Server.Shutdown] stops it; the caller runs the engine's Watch and
// RunIngest beside it.
package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/engine"
)

// ObsidianOrigin is the Origin header of Obsidian's desktop app. Requests
// with any other Origin come from a web page and are refused; requests
// without one come from the CLI or tests.
const ObsidianOrigin = "app://obsidian.md"

// Protocol and MinProtocol are the newest and oldest protocol versions the
// server speaks, for the connection file and `quire version --json`, where
// the plugin reads them before it connects.
const (
	Protocol    = proto.Version
	MinProtocol = proto.MinVersion
)

// Defaults for [Options].
const (
	DefaultFrameLimit   = 1 << 20
	DefaultHelloTimeout = 2 * time.Second
	// A welcomed client is pinged after DefaultPingInterval without one and
	// must answer within DefaultPongWait. The wait is generous: it also
	// covers an alive client draining what the socket buffers hold before
	// the ping (megabytes on loopback) and a renderer busy for a while.
	DefaultPingInterval = 20 * time.Second
	DefaultPongWait     = 60 * time.Second
)

// Options configure a Server. Engine is required; every other field has a
// default.
type Options struct {
	// Engine is the open vault the server answers from. The caller runs
	// its Watch and RunIngest beside Serve and closes it after Shutdown.
	Engine *engine.Engine
	// Version is the sidecar's release version, reported in welcome and
	// status.
	Version string
	// Token is the secret a client must send in hello; empty means a fresh
	// random one (see [Server.Token]).
	Token string
	// Secret is the state folder's secret (state.Secret), with which
	// welcome answers a hello's nonce (see Proof); empty answers none.
	Secret string
	// Log receives the server's log; nil discards it.
	Log *slog.Logger
	// FrameLimit is the largest frame answered; larger ones get too_large
	// and the connection stays open. Eight times it closes the connection.
	FrameLimit int
	// HelloTimeout is how long a new connection has to send hello.
	HelloTimeout time.Duration
	// PingInterval is how often a welcomed connection is pinged, and
	// PongWait how long it has to answer a ping once the ping is written;
	// one that does not answer is dropped. A frozen client process or a
	// half-dead connection (no FIN) would otherwise count as connected
	// for ever and keep a shared sidecar alive. The time the server spends
	// writing a large frame to a slow reader does not count: the ping is
	// written after it.
	PingInterval time.Duration
	PongWait     time.Duration
	// MaxWork bounds the requests worked on at once across every
	// connection (searches, related pages, notes, asks while they do not
	// wait on a model: everything but ingest); the rest wait their turn. 0 means the
	// number of CPUs Go may use, at least 2: more at once only adds memory,
	// not speed.
	MaxWork int
	// OnShutdown, when set, is called once a client asks the sidecar to
	// stop (shutdown), after the reply is on its way; without it shutdown
	// is refused.
	OnShutdown func()
	// OnClients, when set, is called with the number of welcomed
	// connections each time a client is welcomed or leaves (a sidecar
	// shared by MCP clients stops when none remain). It is called with the
	// server's lock held: it must not block or call the server.
	OnClients func(n int)
}

// Server is a running sidecar's protocol endpoint for one vault.
type Server struct {
	vault    string // absolute, as welcome reports it
	opts     Options
	e        *engine.Engine
	log      *slog.Logger
	token    string
	upgrader websocket.Upgrader
	http     *http.Server

	// reqCtx is the parent of every request's context; Shutdown cancels it
	// when in-flight requests outlive its deadline.
	reqCtx    context.Context
	cancelReq context.CancelFunc

	mu       sync.Mutex
	conns    map[*conn]bool // every connection; true once welcomed
	serials  atomic.Uint64  // connections so far, for conn.serial
	closing  bool
	inflight sync.WaitGroup // requests being answered
	work     chan struct{}  // a slot per request worked on (MaxWork)
	waiting  atomic.Int64   // requests waiting for a slot
	live     sync.WaitGroup // connections being served

	// hook, when set by a test, runs before each request is answered.
	hook    func(typ string)
	streams map[string]StreamFunc // guarded by mu

	unsubscribe func()

	answers recent // for answer.save
}

// New returns a server for opts.Engine; it pushes the engine's events to
// every welcomed connection.
func New(opts Options) (*Server, error) {
	if opts.Engine == nil {
		return nil, errors.New("server: no engine")
	}
	if opts.FrameLimit <= 0 {
		opts.FrameLimit = DefaultFrameLimit
	}
	if opts.MaxWork <= 0 {
		opts.MaxWork = max(2, runtime.GOMAXPROCS(0))
	}
	if opts.HelloTimeout <= 0 {
		opts.HelloTimeout = DefaultHelloTimeout
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = DefaultPingInterval
	}
	if opts.PongWait <= 0 {
		opts.PongWait = DefaultPongWait
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	token := opts.Token
	if token == "" {
		var err error
		if token, err = NewToken(); err != nil {
			return nil, err
		}
	}
	s := &Server{
		vault: opts.Engine.Vault(),
		opts:  opts,
		e:     opts.Engine,
		log:   opts.Log,
		token: token,
		conns: map[*conn]bool{},
		work:  make(chan struct{}, opts.MaxWork),
	}
	s.reqCtx, s.cancelReq = context.WithCancel(context.Background())
	s.upgrader = websocket.Upgrader{
		CheckOrigin:     checkOrigin,
		ReadBufferSize:  16 << 10,
		WriteBufferSize: 16 << 10,
	}
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	s.HandleStream(proto.TypeAskQuery, s.handleAsk)
	s.unsubscribe = s.e.Subscribe(s.push)
	return s, nil
}

// NewToken returns a random 128-bit secret, hex-encoded.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Proof is welcome's answer to a hello's nonce: hex HMAC-SHA256 of
// "quire welcome " + nonce, keyed by the state folder's secret. The plugin
// checks it before it hands over an API key.
func Proof(secret, nonce string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("quire welcome " + nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// Token returns the secret clients must send in hello.
func (s *Server) Token() string { return s.token }

// checkOrigin lets Obsidian and non-browser clients in. Gorilla's default
// accepts only an Origin equal to the Host, which refuses Obsidian
// (app://obsidian.md is never our host) and is not the rule we want.
func checkOrigin(r *http.Request) bool {
	origin, ok := r.Header["Origin"]
	if !ok {
		return true
	}
	return len(origin) == 1 && origin[0] == ObsidianOrigin
}

// Handler returns the websocket endpoint, for tests that serve it with
// httptest. Every path upgrades; the CLI and the plugin use "/".
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !checkOrigin(r) {
			s.log.Warn("refused connection", "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
			http.Error(w, "origin not allowed", http.StatusForbidden)
			return
		}
		ws, err := s.upgrader.Upgrade(w, r, nil)
		if err != nil {
			return // the upgrader has answered with an HTTP error
		}
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			_ = ws.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseGoingAway, "sidecar shutting down"), time.Now().Add(time.Second))
			ws.Close()
			return
		}
		c := newConn(s, ws)
		s.conns[c] = false
		s.live.Add(1)
		s.mu.Unlock()
		defer s.live.Done()
		c.serve()
	})
}

// Listen listens on 127.0.0.1 at port (0: any free port). The sidecar never
// listens on other interfaces: the vault is for this machine only.
func Listen(port int) (net.Listener, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(port)))
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	return l, nil
}

// Serve answers connections on l until Shutdown. It returns nil after
// Shutdown.
func (s *Server) Serve(l net.Listener) error {
	err := s.http.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops taking connections and requests. Requests in flight
// finish; those that arrive meanwhile get not_ready. When ctx ends first,
// the requests still running are cancelled. Every connection is then closed
// with "sidecar shutting down".
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.unsubscribe()
	err := s.http.Shutdown(ctx)

	finished := make(chan struct{})
	go func() { s.inflight.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-ctx.Done():
		s.cancelReq()
		<-finished
	}
	s.cancelReq()

	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.shut(websocket.CloseGoingAway, "sidecar shutting down")
	}
	closed := make(chan struct{})
	go func() { s.live.Wait(); close(closed) }()
	select {
	case <-closed:
	case <-ctx.Done():
		// Clients that do not answer the close are cut off.
		for _, c := range conns {
			c.ws.Close()
		}
		<-closed
	}
	return err
}

// begin registers a request in flight, or reports false when the server is
// shutting down.
func (s *Server) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.inflight.Add(1)
	return true
}

func (s *Server) end() { s.inflight.Done() }

// join makes a welcomed connection receive events.
func (s *Server) join(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns[c] = true
	s.clientsChanged()
}

func (s *Server) leave(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	welcomed := s.conns[c]
	delete(s.conns, c)
	if welcomed {
		s.clientsChanged()
	}
}

// clientsChanged tells OnClients how many welcomed connections there are;
// s.mu is held.
func (s *Server) clientsChanged() {
	if s.opts.OnClients == nil {
		return
	}
	n := 0
	for _, welcomed := range s.conns {
		if welcomed {
			n++
		}
	}
	s.opts.OnClients(n)
}

// broadcast pushes an event to every welcomed connection. It never waits
// for a client: one that cannot keep up is disconnected (see conn.event).
func (s *Server) broadcast(typ string, payload any) {
	data, err := encodeFrame("", typ, payload)
	if err != nil {
		s.log.Error("encode event", "type", typ, "err", err)
		return
	}
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c, welcomed := range s.conns {
		if welcomed {
			conns = append(conns, c)
		}
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.event(data)
	}
}
