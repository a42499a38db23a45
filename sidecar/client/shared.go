package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/grep"
	"github.com/quire-app/quire/sidecar/search"
)

// Shared answers every call through the sidecar that serves the vault:
// the plugin's, or one it starts for the vault when none runs
// (AttachOrStart), which every `quire mcp`, the plugin and the CLI then
// share, and which stops once none of them has been connected for
// Start.Idle. A Shared never opens the index itself, so none locks the
// others out; when the sidecar stops, the next call attaches again (or
// starts one).
type Shared struct {
	start Start

	mu  sync.Mutex // held while attaching, so one call starts the sidecar
	cl  *Client
	rem *Remote
}

// NewShared returns a Shared for s's vault; it attaches on the first call.
func NewShared(s Start) *Shared { return &Shared{start: s} }

// acquire returns the sidecar's Remote and connection for one call,
// attaching (or starting one) when there is no live connection.
func (v *Shared) acquire(ctx context.Context) (*Remote, *Client, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cl != nil {
		select {
		case <-v.cl.Done(): // the sidecar stopped: attach again
			v.cl.Close()
			v.cl, v.rem = nil, nil
		default:
			return v.rem, v.cl, nil
		}
	}
	cl, cf, err := AttachOrStart(ctx, v.start)
	if err != nil {
		return nil, nil, err
	}
	if !SameDir(cl.Welcome().Vault, v.start.Vault) {
		cl.Close()
		return nil, nil, fmt.Errorf("the sidecar (pid %d) of state folder %s serves %s, not %s", cf.PID, v.start.State, cl.Welcome().Vault, v.start.Vault)
	}
	// A sidecar just started reads the vault first; answer from the whole
	// index, as a search in process would after its pass.
	if err := firstPass(ctx, cl); err != nil {
		cl.Close()
		return nil, nil, err
	}
	v.cl, v.rem = cl, NewRemote(cl, cf.PID)
	return v.rem, cl, nil
}

// firstPass waits until the sidecar has finished its first pass over the
// vault (the keyword index; vectors follow in the background).
func firstPass(ctx context.Context, cl *Client) error {
	for {
		st, err := cl.Status(ctx)
		if err != nil {
			return fmt.Errorf("sidecar status: %w", err)
		}
		if !st.LastIndexed.IsZero() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sidecar's first pass: %w", ctx.Err())
		case <-cl.Done():
			return fmt.Errorf("sidecar's first pass: %w", cl.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Close lets go of the sidecar (which stops once no client remains).
func (v *Shared) Close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cl != nil {
		v.cl.Close()
		v.cl, v.rem = nil, nil
	}
}

// with runs f on the sidecar's Remote for one call. A call that fails
// because the sidecar went away (it may be the first to notice: the
// connection's end was not read yet) is made once more, through the
// sidecar that serves now, attached or started, unless again says it
// cannot be (an answer already partly streamed); nil again always can.
func with[T any](ctx context.Context, v *Shared, again func() bool, f func(*Remote) (T, error)) (T, error) {
	for try := 0; ; try++ {
		r, cl, err := v.acquire(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		out, err := f(r)
		var ee *engine.Error
		if err == nil || try > 0 || ctx.Err() != nil || errors.As(err, &ee) || again != nil && !again() || !ended(cl) {
			return out, err
		}
	}
}

// ended reports whether cl's connection has ended, giving its reader a
// moment: a request written into a connection the sidecar dropped fails
// before the reader reads the end.
func ended(cl *Client) bool {
	select {
	case <-cl.Done():
		return true
	case <-time.After(time.Second):
		return false
	}
}

// Via names who answers now, for the MCP status tool.
func (v *Shared) Via() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rem != nil {
		return v.rem.Via()
	}
	return "no sidecar yet"
}

// Status is engine.Engine.Status through the sidecar.
func (v *Shared) Status(ctx context.Context) (engine.Status, error) {
	return with(ctx, v, nil, func(r *Remote) (engine.Status, error) { return r.Status(ctx) })
}

// Reindex is engine.Engine.Reindex through the sidecar.
func (v *Shared) Reindex(ctx context.Context, full bool, progress func(engine.Progress)) (engine.Reindexed, error) {
	return with(ctx, v, nil, func(r *Remote) (engine.Reindexed, error) { return r.Reindex(ctx, full, progress) })
}

// Search is engine.Engine.Search through the sidecar.
func (v *Shared) Search(ctx context.Context, q engine.Query) (search.Result, error) {
	return with(ctx, v, nil, func(r *Remote) (search.Result, error) { return r.Search(ctx, q) })
}

// Note is engine.Engine.Note through the sidecar.
func (v *Shared) Note(ctx context.Context, path string, forMCP bool) (string, error) {
	return with(ctx, v, nil, func(r *Remote) (string, error) { return r.Note(ctx, path, forMCP) })
}

// Grep is engine.Engine.Grep through the sidecar.
func (v *Shared) Grep(ctx context.Context, o grep.Options, forMCP bool) (grep.Result, error) {
	return with(ctx, v, nil, func(r *Remote) (grep.Result, error) { return r.Grep(ctx, o, forMCP) })
}

// Ask is engine.Engine.Ask through the sidecar; a question whose answer
// had begun to stream is not asked again.
func (v *Shared) Ask(ctx context.Context, q engine.Question, onDelta func(string)) (ask.Answer, error) {
	var streamed atomic.Bool
	delta := func(s string) {
		streamed.Store(true)
		if onDelta != nil {
			onDelta(s)
		}
	}
	return with(ctx, v, func() bool { return !streamed.Load() }, func(r *Remote) (ask.Answer, error) { return r.Ask(ctx, q, delta) })
}

// SameDir reports whether a and b name the same folder (by file identity
// when both exist, else by absolute path).
func SameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		aa, _ := filepath.Abs(a)
		bb, _ := filepath.Abs(b)
		return aa == bb
	}
	return os.SameFile(sa, sb)
}
