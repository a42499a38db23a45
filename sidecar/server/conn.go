package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/quire-app/quire/proto"
)

const (
	// queueLen is how many frames may wait for a slow client before it is
	// dropped for not reading.
	queueLen = 256
	// maxInflight bounds one connection's concurrent requests; past it the
	// reader stops reading, which pushes back on the client.
	maxInflight = 32
	// writeWait bounds one frame's write.
	writeWait = 10 * time.Second
	// closeWait is how long a closing connection waits for the peer's
	// close frame before dropping it.
	closeWait = time.Second
	// maxIDLen bounds request ids, which every reply echoes.
	maxIDLen = 128
)

// outFrame is one item of a connection's write queue: a text frame, or a
// close frame after which the writer stops.
type outFrame struct {
	data   []byte
	close  bool
	code   int
	reason string
}

// conn is one client connection. Gorilla allows one concurrent writer, so
// every frame goes through out to the writer goroutine; the reader runs in
// serve's goroutine and each request in its own.
type conn struct {
	s        *Server
	serial   uint64 // this server's count of connections when it came
	ws       *websocket.Conn
	out      chan outFrame
	done     chan struct{} // closed when the connection is over
	sem      chan struct{}
	shutOnce sync.Once
	shutting chan struct{} // closed once a close frame is queued
	welcomed chan struct{} // closed once the client is welcomed: pings start

	// dl guards the read deadline, which the reader (pongs), the writer
	// (pings) and shut (closing) all move: a pong must not lift the
	// deadline that closing set.
	dl      sync.Mutex
	pinged  bool // a ping is out and unanswered: the read deadline runs
	closing bool // the read deadline is closing's
	paused  bool // the reader waits for a request slot: no pong can be read
}

func newConn(s *Server, ws *websocket.Conn) *conn {
	return &conn{
		s:        s,
		serial:   s.serials.Add(1),
		ws:       ws,
		out:      make(chan outFrame, queueLen),
		done:     make(chan struct{}),
		sem:      make(chan struct{}, maxInflight),
		shutting: make(chan struct{}),
		welcomed: make(chan struct{}),
	}
}

// serve runs the connection: handshake, then requests, until either side
// closes it.
func (c *conn) serve() {
	// Past eight frame limits the frame is not worth reading to the end:
	// gorilla answers with a 1009 close.
	c.ws.SetReadLimit(int64(c.s.opts.FrameLimit) * 8)
	writerDone := make(chan struct{})
	go func() { c.writer(); close(writerDone) }()
	defer func() {
		c.s.leave(c)
		select {
		case <-c.shutting:
			// Let the writer send what was queued before the close frame.
			select {
			case <-writerDone:
			case <-time.After(writeWait):
			}
		default:
		}
		c.ws.Close()
		close(c.done)
		<-writerDone
	}()

	if !c.handshake() {
		c.drain()
		return
	}
	// Requests stop when their client goes or the server shuts down.
	ctx, cancel := context.WithCancel(c.s.reqCtx)
	defer cancel()
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	c.ws.SetPongHandler(func(string) error { c.ponged(); return nil })
	c.s.join(c)
	close(c.welcomed)
	for {
		data, tooLarge, err := c.read()
		if err != nil {
			select {
			case <-c.shutting:
				c.drain()
			default:
				var ne interface{ Timeout() bool }
				if errors.As(err, &ne) && ne.Timeout() {
					c.s.log.Warn("dropping a client that does not answer pings",
						"remote", c.ws.RemoteAddr().String(), "wait", c.s.opts.PongWait.String())
				}
			}
			if errors.Is(err, websocket.ErrReadLimit) {
				// Gorilla has sent a 1009 close but cannot read on. Closing
				// now, with the frame's rest unread, would reset the
				// connection and lose that close frame: read the rest raw
				// until the client hangs up or closeWait passes.
				raw := c.ws.UnderlyingConn()
				_ = raw.SetReadDeadline(time.Now().Add(closeWait))
				_, _ = io.Copy(io.Discard, raw)
			}
			return
		}
		if tooLarge {
			c.reply(frameID(data), "", nil, &proto.Error{Code: proto.CodeTooLarge,
				Message: fmt.Sprintf("frame over %d bytes", c.s.opts.FrameLimit)})
			continue
		}
		env, perr := decodeRequest(data)
		if perr != nil {
			c.reply(env.ID, "", nil, perr)
			continue
		}
		if !c.s.begin() {
			c.reply(env.ID, "", nil, &proto.Error{Code: proto.CodeNotReady, Message: "sidecar is shutting down"})
			continue
		}
		if !c.acquire(writerDone) {
			c.s.end()
			return
		}
		go func() {
			defer func() { <-c.sem; c.s.end() }()
			typ, payload, perr := c.s.handle(ctx, env, connStream{c: c, id: env.ID})
			c.reply(env.ID, typ, payload, perr)
		}()
	}
}

// handshake reads hello within the timeout and answers welcome, or queues
// an error and a close with the reason and reports false.
func (c *conn) handshake() bool {
	refuse := func(code proto.ErrorCode, msg string) bool {
		c.reply("", "", nil, &proto.Error{Code: code, Message: msg})
		c.shut(websocket.ClosePolicyViolation, msg)
		c.s.log.Warn("refused client", "remote", c.ws.RemoteAddr().String(), "reason", msg)
		return false
	}
	c.setReadDeadline(time.Now().Add(c.s.opts.HelloTimeout))
	data, tooLarge, err := c.read()
	if err != nil {
		select {
		case <-c.shutting:
			return false // the server is shutting down, not the client late
		default:
		}
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) && ne.Timeout() {
			// The read timed out: the connection can no longer be read, but
			// it can still be told why it is closed.
			return refuse(proto.CodeUnauthorized, fmt.Sprintf("no hello within %s", c.s.opts.HelloTimeout))
		}
		return false
	}
	if tooLarge {
		return refuse(proto.CodeTooLarge, "hello frame too large")
	}
	c.setReadDeadline(time.Time{})
	var env proto.Envelope
	if err := json.Unmarshal(data, &env); err != nil || env.Type != proto.TypeHello {
		return refuse(proto.CodeUnauthorized, "first frame must be hello")
	}
	var h proto.Hello
	if err := env.Decode(&h); err != nil {
		return refuse(proto.CodeInvalidRequest, "malformed hello")
	}
	version, err := proto.Negotiate(h.MinProtocol, h.Protocol)
	if err != nil {
		return refuse(proto.CodeUnsupportedVersion, err.Error())
	}
	if h.Token == "" {
		return refuse(proto.CodeUnauthorized, "missing token")
	}
	if subtle.ConstantTimeCompare([]byte(h.Token), []byte(c.s.token)) != 1 {
		return refuse(proto.CodeUnauthorized, "wrong token")
	}
	c.s.log.Info("client connected", "client", h.Client, "remote", c.ws.RemoteAddr().String())
	w := proto.Welcome{Protocol: version, Version: c.s.opts.Version, Vault: c.s.vault, Requests: proto.Requests()}
	if h.Nonce != "" && c.s.opts.Secret != "" {
		w.Proof = Proof(c.s.opts.Secret, h.Nonce)
	}
	c.reply("", proto.TypeWelcome, w, nil)
	return true
}

// read returns the next text frame. A frame over the frame limit is read
// to its end and dropped, and tooLarge is set with the frame's first bytes
// in data, so that the reply can carry its id when the id comes first.
func (c *conn) read() (data []byte, tooLarge bool, err error) {
	for {
		typ, r, err := c.ws.NextReader()
		if err != nil {
			return nil, false, err
		}
		limit := int64(c.s.opts.FrameLimit)
		data, err = io.ReadAll(io.LimitReader(r, limit+1))
		if err != nil {
			return nil, false, err
		}
		if int64(len(data)) > limit {
			if _, err := io.Copy(io.Discard, r); err != nil {
				return nil, false, err
			}
			return data, true, nil
		}
		if typ != websocket.TextMessage {
			c.reply("", "", nil, &proto.Error{Code: proto.CodeInvalidRequest, Message: "binary frames are not part of the protocol"})
			continue
		}
		return data, false, nil
	}
}

// decodeRequest decodes one frame into an envelope and checks that it is a
// request: valid JSON, a known type whose kind is request, and an id. On
// failure the envelope still carries the id when one could be read, so that
// the error reaches the right caller.
func decodeRequest(data []byte) (proto.Envelope, *proto.Error) {
	var env proto.Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		env = proto.Envelope{ID: frameID(data)}
		return env, &proto.Error{Code: proto.CodeInvalidRequest, Message: "malformed frame: " + shorten(err.Error(), 200)}
	}
	if len(env.ID) > maxIDLen {
		return proto.Envelope{}, &proto.Error{Code: proto.CodeInvalidRequest, Message: fmt.Sprintf("id longer than %d bytes", maxIDLen)}
	}
	m, ok := proto.Lookup(env.Type)
	if !ok {
		return env, &proto.Error{Code: proto.CodeInvalidRequest, Message: fmt.Sprintf("unknown type %q", shorten(env.Type, 64))}
	}
	if m.Kind != proto.KindRequest {
		return env, &proto.Error{Code: proto.CodeInvalidRequest, Message: fmt.Sprintf("%s is not a request", env.Type)}
	}
	if env.ID == "" {
		return env, &proto.Error{Code: proto.CodeInvalidRequest, Message: env.Type + " without an id"}
	}
	return env, nil
}

// frameID digs the id out of a frame that cannot be decoded whole (too
// large, or broken after the id), reading tokens until the top-level "id"
// key or the first error.
func frameID(prefix []byte) string {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key == "id" {
			var id string
			if dec.Decode(&id) != nil || len(id) > maxIDLen {
				return ""
			}
			return id
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// reply queues a result frame of type typ, or an error frame when perr is
// set. It waits for room in the queue: only this connection's requests
// wait on a slow reader.
func (c *conn) reply(id, typ string, payload any, perr *proto.Error) {
	if perr != nil {
		typ, payload = proto.TypeError, perr
	}
	data, err := encodeFrame(id, typ, payload)
	if err == nil {
		select {
		case c.out <- outFrame{data: data}:
		case <-c.done:
		}
		return
	}
	c.s.log.Error("encode reply", "type", typ, "err", err)
	c.reply(id, "", nil, &proto.Error{Code: proto.CodeInternal, Message: "reply could not be encoded"})
}

// event queues a pushed event without waiting. A client whose queue is
// full is not reading; it is disconnected (and resyncs when it reconnects)
// rather than holding back events for everyone else.
func (c *conn) event(data []byte) {
	select {
	case <-c.shutting:
	case c.out <- outFrame{data: data}:
	default:
		c.s.log.Warn("dropping a client that does not read", "remote", c.ws.RemoteAddr().String())
		c.ws.Close()
	}
}

// shut queues a close frame with a reason; the writer sends it after the
// frames queued before it and then stops.
func (c *conn) shut(code int, reason string) {
	c.shutOnce.Do(func() {
		close(c.shutting)
		select {
		case c.out <- outFrame{close: true, code: code, reason: reason}:
		case <-c.done:
		default:
			// Queue full: the client is not reading anyway.
			c.ws.Close()
		}
		// The reader may be blocked on a silent client: give it until
		// closeWait to answer the close.
		c.closeDeadline()
	})
}

// drain reads until the peer answers the close frame or closeWait passes.
func (c *conn) drain() {
	c.closeDeadline()
	for {
		if _, _, err := c.ws.NextReader(); err != nil {
			return
		}
	}
}

// setReadDeadline moves the read deadline unless closing has set it.
func (c *conn) setReadDeadline(t time.Time) {
	c.dl.Lock()
	defer c.dl.Unlock()
	if !c.closing {
		_ = c.ws.UnderlyingConn().SetReadDeadline(t)
	}
}

// closeDeadline gives the peer closeWait to answer a close; nothing moves
// the read deadline after it.
func (c *conn) closeDeadline() {
	c.dl.Lock()
	defer c.dl.Unlock()
	c.closing = true
	_ = c.ws.UnderlyingConn().SetReadDeadline(time.Now().Add(closeWait))
}

// acquire takes one of the connection's request slots. While it waits
// the reader reads nothing, pongs included: the ping deadline is stopped
// meanwhile, so that a client with maxInflight requests in flight is not
// dropped as one that does not answer pings, and runs again in full when
// reading resumes. It reports false when the writer stopped (the client
// is gone) before a slot was free.
func (c *conn) acquire(writerDone <-chan struct{}) bool {
	select {
	case c.sem <- struct{}{}:
		return true
	default:
	}
	c.dl.Lock()
	c.paused = true
	if c.pinged && !c.closing {
		_ = c.ws.UnderlyingConn().SetReadDeadline(time.Time{})
	}
	c.dl.Unlock()
	defer func() {
		c.dl.Lock()
		defer c.dl.Unlock()
		c.paused = false
		if c.pinged && !c.closing {
			_ = c.ws.UnderlyingConn().SetReadDeadline(time.Now().Add(c.s.opts.PongWait))
		}
	}()
	select {
	case c.sem <- struct{}{}:
		return true
	case <-writerDone:
		return false
	}
}

// pinging starts the wait for a pong, before the ping is written (so that
// the pong cannot come first). It reports false when a ping is already out
// (its wait is not extended: a client that never answers is dropped) or the
// connection is closing.
func (c *conn) pinging() bool {
	c.dl.Lock()
	defer c.dl.Unlock()
	if c.pinged || c.closing {
		return false
	}
	c.pinged = true
	if !c.paused {
		_ = c.ws.UnderlyingConn().SetReadDeadline(time.Now().Add(c.s.opts.PongWait))
	}
	return true
}

// ponged ends the wait for a pong: the client is alive, however long it
// then takes to read what comes next.
func (c *conn) ponged() {
	c.dl.Lock()
	defer c.dl.Unlock()
	if c.pinged && !c.closing {
		c.pinged = false
		_ = c.ws.UnderlyingConn().SetReadDeadline(time.Time{})
	}
}

// writer is the connection's only writer. Once the client is welcomed it
// also pings it every PingInterval. A ping waits behind the frame being
// written, so a client slowly reading a large reply is not timed while it
// reads; its pong only has to come within PongWait of the ping.
func (c *conn) writer() {
	var tick <-chan time.Time
	welcomed := c.welcomed
	for {
		select {
		case <-welcomed:
			t := time.NewTicker(c.s.opts.PingInterval)
			defer t.Stop()
			tick, welcomed = t.C, nil
		case <-tick:
			if !c.pinging() {
				continue
			}
			_ = c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.PingMessage, nil); err != nil {
				c.ws.Close()
				return
			}
		case f := <-c.out:
			_ = c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if f.close {
				_ = c.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(f.code, f.reason))
				return
			}
			if err := c.ws.WriteMessage(websocket.TextMessage, f.data); err != nil {
				c.ws.Close()
				return
			}
		case <-c.done:
			return
		}
	}
}

// encodeFrame encodes one frame. HTML escaping is off: note text full of
// < and & would otherwise grow on the wire for no reader's benefit.
func encodeFrame(id, typ string, payload any) ([]byte, error) {
	raw, err := marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", typ, err)
	}
	return marshal(proto.Envelope{ID: id, Type: typ, Payload: raw})
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
