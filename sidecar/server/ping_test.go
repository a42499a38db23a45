package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/quire-app/quire/proto"
)

// clientCounts records what OnClients is told, for tests that wait for a
// number of welcomed clients.
type clientCounts struct {
	mu   sync.Mutex
	n    int
	seen chan struct{} // closed and replaced at each call
}

func newClientCounts() *clientCounts { return &clientCounts{seen: make(chan struct{})} }

// set is Options.OnClients: it must not block.
func (c *clientCounts) set(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = n
	close(c.seen)
	c.seen = make(chan struct{})
}

// wait waits until OnClients was last told n, or fails after a generous
// time (the condition, not the time, is what is tested).
func (c *clientCounts) wait(t *testing.T, n int, why string) {
	t.Helper()
	limit := time.After(2 * time.Minute)
	for {
		c.mu.Lock()
		got, seen := c.n, c.seen
		c.mu.Unlock()
		if got == n {
			return
		}
		select {
		case <-seen:
		case <-limit:
			t.Fatalf("%s: %d clients connected, want %d", why, got, n)
		}
	}
}

// TestUnresponsiveClientsDropped checks that a client that stops answering
// pings is dropped after PongWait, so that a shared sidecar's idle timer
// can run, while a client that answers stays however long it is connected.
// The clients are real websocket connections: one frozen (it never reads
// again, as a stopped process or a connection whose peer is gone without a
// FIN), one that reads but does not answer pings.
func TestUnresponsiveClientsDropped(t *testing.T) {
	counts := newClientCounts()
	const pongWait = 2 * time.Second
	h := start(t, notes, func(s *setup) {
		s.Server.PingInterval = 10 * time.Millisecond
		s.Server.PongWait = pongWait
		s.Server.OnClients = counts.set
	})

	// The answering client: gorilla answers a ping while the client reads.
	alive := h.raw(nil)
	h.hello(alive)
	_ = alive.SetReadDeadline(time.Time{}) // hello's
	var pings atomic.Int64
	var firstPing atomic.Int64
	alive.SetPingHandler(func(data string) error {
		if pings.Add(1) == 1 {
			firstPing.Store(time.Now().UnixNano())
		}
		return alive.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	frames := make(chan proto.Envelope, 16)
	go func() {
		for {
			var env proto.Envelope
			if err := alive.ReadJSON(&env); err != nil {
				close(frames)
				return
			}
			frames <- env
		}
	}()

	frozen := h.raw(nil)
	h.hello(frozen)
	deaf := h.raw(nil)
	h.hello(deaf)
	_ = deaf.SetReadDeadline(time.Time{})
	deaf.SetPingHandler(func(string) error { return nil })
	go func() {
		for {
			if _, _, err := deaf.NextReader(); err != nil {
				return
			}
		}
	}()
	counts.wait(t, 3, "after three hellos")

	counts.wait(t, 1, "frozen and deaf clients never dropped")
	// The one left is the answering client, and it stays past the time
	// its first ping would have had to be answered in.
	for pings.Load() < 3 || time.Since(time.Unix(0, firstPing.Load())) < 2*pongWait {
		select {
		case _, ok := <-frames:
			if !ok {
				t.Fatal("the answering client was dropped")
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
	send(t, alive, "s", proto.TypeStatusGet, proto.StatusGet{})
	for env := range frames {
		if env.ID == "s" {
			if env.Type != proto.TypeStatusResult {
				t.Fatalf("status: got %s %s", env.Type, env.Payload)
			}
			// The frozen client's socket is still open on its side, yet
			// once the answering client leaves none is counted: an idle
			// sidecar can stop.
			alive.Close()
			counts.wait(t, 0, "after the answering client left")
			return
		}
	}
	t.Fatal("the answering client was dropped")
}

// smallBuffers makes every accepted connection's send buffer small, so
// that a large frame is written only as fast as the client reads it.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

// TestSlowReaderKept checks that a client slowly reading a large frame is
// not taken for a dead one: reading it takes longer than PongWait, but a
// ping goes out only after the frame, and the client answers it once it has
// read what came before.
func TestSlowReaderKept(t *testing.T) {
	counts := newClientCounts()
	const pongWait = time.Second
	h := start(t, notes, func(s *setup) {
		s.Server.PingInterval = 10 * time.Millisecond
		s.Server.PongWait = pongWait
		s.Server.OnClients = counts.set
	})
	hs := httptest.NewUnstartedServer(h.srv.Handler())
	hs.Listener = smallBuffers{hs.Listener}
	hs.Start()
	t.Cleanup(hs.Close)

	d := websocket.Dialer{
		ReadBufferSize: 16 << 10,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetReadBuffer(32 << 10)
			}
			return c, err
		},
	}
	ws, _, err := d.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/", http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	h.hello(ws)
	_ = ws.SetReadDeadline(time.Time{}) // hello's
	counts.wait(t, 1, "after hello")

	// 2 MB read at most 16 KB at a time, 20 ms apart: well over PongWait
	// (and under the 10 s a frame's write may take), while what the socket
	// buffers (about 100 KB) hold once the frame is written takes a few
	// reads.
	// Encoding it may take a while (the race detector): the client reads,
	// and so answers pings, meanwhile.
	big := strings.Repeat("x", 2<<20)
	go h.srv.broadcast(proto.TypeSidecarWarning, proto.SidecarWarning{Message: big})
	began := time.Now()
	for {
		_, r, err := ws.NextReader()
		if err != nil {
			t.Fatalf("read the large frame: %v", err)
		}
		buf := make([]byte, 16<<10)
		n := 0
		for {
			k, err := r.Read(buf)
			n += k
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("read the large frame after %d bytes: %v", n, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if n > len(big) {
			break
		}
	}
	if took := time.Since(began); took < pongWait {
		t.Logf("the frame was read in %s, less than PongWait: the test shows nothing", took)
	}
	send(t, ws, "s", proto.TypeStatusGet, proto.StatusGet{})
	if env := recv(t, ws); env.ID != "s" || env.Type != proto.TypeStatusResult {
		t.Fatalf("status after the slow read: got %s %s", env.Type, env.Payload)
	}
}

// TestBusyClientKept: a client with maxInflight requests in flight is
// not read until one ends, so its pongs wait unread; it answers them all
// the same and must not be dropped as one that does not, however long its
// requests take (here several PongWaits).
func TestBusyClientKept(t *testing.T) {
	counts := newClientCounts()
	const pongWait = 300 * time.Millisecond
	h := start(t, notes, func(s *setup) {
		s.Server.PingInterval = 10 * time.Millisecond
		s.Server.PongWait = pongWait
		s.Server.OnClients = counts.set
	})
	release := make(chan struct{})
	h.srv.hook = func(string) { <-release }
	ws := h.raw(nil)
	h.hello(ws)
	_ = ws.SetReadDeadline(time.Time{}) // hello's
	replies := make(chan proto.Envelope, 64)
	go func() {
		defer close(replies)
		for {
			var env proto.Envelope
			if err := ws.ReadJSON(&env); err != nil {
				return
			}
			if m, ok := proto.Lookup(env.Type); !ok || m.Kind != proto.KindEvent {
				replies <- env
			}
		}
	}()
	counts.wait(t, 1, "after hello")
	const n = maxInflight + 8
	for i := range n {
		send(t, ws, strconv.Itoa(i), proto.TypeStatusGet, proto.StatusGet{})
	}
	time.Sleep(5 * pongWait)
	close(release)
	for i := range n {
		select {
		case env, ok := <-replies:
			if !ok {
				t.Fatalf("dropped after %d of %d replies", i, n)
			}
			if env.Type != proto.TypeStatusResult {
				t.Fatalf("reply %d: %s %s", i, env.Type, env.Payload)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%d of %d replies", i, n)
		}
	}
}
