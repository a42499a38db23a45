// Package client talks to a running sidecar over its websocket protocol:
// [Client] sends requests and receives pushed events, and [Remote] answers
// the questions an [engine.Engine] answers (status, reindex, search, note,
// ask) through it, so that a front end works the same through a running
// sidecar as in process. With the server, it is the only package that
// maps between proto and domain types.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/state"
)

// writeWait bounds one frame's write.
const writeWait = 10 * time.Second

// ErrNoSidecar is returned by Attach when no live sidecar serves the state
// folder.
var ErrNoSidecar = errors.New("no sidecar running")

// Client is a protocol client: the CLI's when a sidecar runs, and the
// tests'. Its methods are safe for concurrent use.
type Client struct {
	ws      *websocket.Conn
	welcome proto.Welcome
	events  chan proto.Envelope
	next    atomic.Uint64

	wmu sync.Mutex // gorilla allows one writer

	mu      sync.Mutex
	pending map[string]*pending
	onEvent map[uint64]func(proto.Envelope)
	err     error // why the connection ended
	done    chan struct{}
}

// ClientEventBuffer is how many pushed events a Client holds for a reader
// of Events; later ones are dropped until it reads.
const ClientEventBuffer = 256

// Dial connects to the sidecar at url (ws://127.0.0.1:PORT/), sends hello
// with token and waits for welcome. header may carry an Origin.
func Dial(ctx context.Context, url, token, name string, header http.Header) (*Client, error) {
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	ws, resp, err := d.DialContext(ctx, url, header)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial %s: %w (HTTP %d)", url, err, resp.StatusCode)
		}
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	ws.SetReadLimit(64 << 20)
	c := &Client{ws: ws, events: make(chan proto.Envelope, ClientEventBuffer), pending: map[string]*pending{}, done: make(chan struct{})}
	if dl, ok := ctx.Deadline(); ok {
		_ = ws.SetReadDeadline(dl)
	}
	if err := c.write("", proto.TypeHello, proto.Hello{Protocol: proto.Version, MinProtocol: proto.MinVersion, Token: token, Client: name}); err != nil {
		ws.Close()
		return nil, err
	}
	var env proto.Envelope
	if err := ws.ReadJSON(&env); err != nil {
		ws.Close()
		return nil, fmt.Errorf("hello: %w", err)
	}
	switch env.Type {
	case proto.TypeWelcome:
		if err := env.Decode(&c.welcome); err != nil {
			ws.Close()
			return nil, err
		}
	case proto.TypeError:
		var pe proto.Error
		_ = env.Decode(&pe)
		ws.Close()
		return nil, fmt.Errorf("hello: %w", &pe)
	default:
		ws.Close()
		return nil, fmt.Errorf("hello: got %s, want welcome", env.Type)
	}
	_ = ws.SetReadDeadline(time.Time{})
	go c.read()
	return c, nil
}

// Attach connects to the sidecar serving the state folder, if one runs:
// its connection file exists, its process is alive and it answers hello.
// Otherwise it returns an error wrapping ErrNoSidecar.
func Attach(ctx context.Context, stateDir, name string) (*Client, state.ConnFile, error) {
	f, err := state.ReadConnFile(filepath.Join(stateDir, state.ConnFileName))
	if err != nil {
		return nil, f, fmt.Errorf("%w: %v", ErrNoSidecar, err)
	}
	if !alive(f.PID) {
		return nil, f, fmt.Errorf("%w: pid %d is gone", ErrNoSidecar, f.PID)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(f.Port)+"/", f.Token, name, nil)
	if err != nil {
		return nil, f, fmt.Errorf("%w: %v", ErrNoSidecar, err)
	}
	return c, f, nil
}

// Welcome returns the sidecar's welcome.
func (c *Client) Welcome() proto.Welcome { return c.welcome }

// Events returns the pushed events. The channel closes when the connection
// ends.
func (c *Client) Events() <-chan proto.Envelope { return c.events }

// OnEvent calls f with every pushed event from now on, from the reader's
// goroutine (f must not block), besides Events. The returned function
// stops it.
func (c *Client) OnEvent(f func(proto.Envelope)) func() {
	id := c.next.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.onEvent == nil {
		c.onEvent = map[uint64]func(proto.Envelope){}
	}
	c.onEvent[id] = f
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.onEvent, id)
	}
}

// Done is closed when the connection has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended, or nil while it is open.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection with a normal close frame.
func (c *Client) Close() error {
	c.wmu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	c.wmu.Unlock()
	select {
	case <-c.done:
	case <-time.After(time.Second):
	}
	return c.ws.Close()
}

// pending is a request waiting for its frames.
type pending struct {
	frames chan proto.Envelope
	gone   chan struct{} // closed when the caller stops listening
}

// begin registers a request id and returns its pending entry and a
// function that forgets it.
func (c *Client) begin(typ string) (string, *pending, func(), error) {
	id := strconv.FormatUint(c.next.Add(1), 10)
	p := &pending{frames: make(chan proto.Envelope, 16), gone: make(chan struct{})}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return "", nil, nil, fmt.Errorf("%s: %w", typ, c.err)
	}
	c.pending[id] = p
	return id, p, func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		close(p.gone)
	}, nil
}

// Call sends a plain request of type typ and decodes its reply into reply.
// An error frame comes back as a *proto.Error.
func (c *Client) Call(ctx context.Context, typ string, req, reply any) error {
	m, ok := proto.Lookup(typ)
	if !ok || m.Kind != proto.KindRequest || m.Stream {
		return fmt.Errorf("call %s: not a plain request", typ)
	}
	return c.roundTrip(ctx, m, req, nil, reply)
}

// Stream sends a streaming request of type typ, calls part for each part
// frame as it arrives, and decodes the final ".done" frame into done. An
// error frame ends the stream as a *proto.Error; an error from part stops
// listening and is returned.
func (c *Client) Stream(ctx context.Context, typ string, req any, part func(proto.Envelope) error, done any) error {
	_, err := c.StreamID(ctx, typ, req, part, done)
	return err
}

// StreamID is Stream that also returns the request's id, which a later
// request may name (answer.save names the ask.query whose answer it saves).
func (c *Client) StreamID(ctx context.Context, typ string, req any, part func(proto.Envelope) error, done any) (string, error) {
	m, ok := proto.Lookup(typ)
	if !ok || m.Kind != proto.KindRequest || !m.Stream {
		return "", fmt.Errorf("stream %s: not a streaming request", typ)
	}
	id, p, forget, err := c.begin(m.Type)
	if err != nil {
		return "", err
	}
	defer forget()
	return id, c.exchange(ctx, m, id, p, req, part, done)
}

func (c *Client) roundTrip(ctx context.Context, m proto.Message, req any, part func(proto.Envelope) error, reply any) error {
	id, p, forget, err := c.begin(m.Type)
	if err != nil {
		return err
	}
	defer forget()
	return c.exchange(ctx, m, id, p, req, part, reply)
}

// exchange sends request id and reads its frames until the reply.
func (c *Client) exchange(ctx context.Context, m proto.Message, id string, p *pending, req any, part func(proto.Envelope) error, reply any) error {
	if err := c.write(id, m.Type, req); err != nil {
		return err
	}
	for {
		select {
		case env := <-p.frames:
			switch {
			case env.Type == m.Reply:
				return env.Decode(reply)
			case env.Type == proto.TypeError:
				var pe proto.Error
				if err := env.Decode(&pe); err != nil {
					return err
				}
				return &pe
			case part != nil:
				if err := part(env); err != nil {
					return err
				}
			default:
				return fmt.Errorf("%s: got reply %s, want %s", m.Type, env.Type, m.Reply)
			}
		case <-c.done:
			return fmt.Errorf("%s: %w", m.Type, c.Err())
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", m.Type, ctx.Err())
		}
	}
}

// Search runs a search.query.
func (c *Client) Search(ctx context.Context, q proto.SearchQuery) (proto.SearchResult, error) {
	var r proto.SearchResult
	err := c.Call(ctx, proto.TypeSearchQuery, q, &r)
	return r, err
}

// Status runs a status.get.
func (c *Client) Status(ctx context.Context) (proto.StatusResult, error) {
	var r proto.StatusResult
	err := c.Call(ctx, proto.TypeStatusGet, proto.StatusGet{}, &r)
	return r, err
}

func (c *Client) write(id, typ string, payload any) error {
	env, err := proto.NewEnvelope(id, typ, payload)
	if err != nil {
		return err
	}
	data, err := json.Marshal(env)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(writeWait))
	if err := c.ws.WriteMessage(websocket.TextMessage, data); err != nil {
		return fmt.Errorf("send %s: %w", typ, err)
	}
	return nil
}

// read routes replies to their callers and events to Events.
func (c *Client) read() {
	var err error
	for {
		var env proto.Envelope
		_, data, rerr := c.ws.ReadMessage()
		if rerr != nil {
			err = rerr
			break
		}
		if json.Unmarshal(data, &env) != nil {
			continue
		}
		if env.ID == "" {
			// Events, and errors about frames too broken to carry an id.
			c.mu.Lock()
			fs := make([]func(proto.Envelope), 0, len(c.onEvent))
			for _, f := range c.onEvent {
				fs = append(fs, f)
			}
			c.mu.Unlock()
			for _, f := range fs {
				f(env)
			}
			select {
			case c.events <- env:
			default:
			}
			continue
		}
		c.mu.Lock()
		p := c.pending[env.ID]
		c.mu.Unlock()
		if p != nil {
			// A stream's parts must not be lost: wait for its reader,
			// unless it has stopped listening.
			select {
			case p.frames <- env:
			case <-p.gone:
			}
		}
	}
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
	close(c.events)
}
