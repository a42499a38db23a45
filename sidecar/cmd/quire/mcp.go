package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/mcp"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/state"
)

// mcpIdle is how long `quire mcp` keeps an index it opened itself after
// the last call. It holds the index's lock meanwhile, so a sidecar (the
// Obsidian plugin's) cannot start until it lets go.
const mcpIdle = 30 * time.Second

// cmdMCP serves the vault to MCP clients: over stdio (what Claude Code and
// Claude Desktop start), or over Streamable HTTP with --http. Nothing but
// the protocol goes to stdout; warnings go to stderr.
func cmdMCP(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("mcp", &c)
	addr := fs.String("http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	token := fs.String("token", "", "bearer token HTTP clients must send (default $QUIRE_MCP_TOKEN, else one generated and kept in <state>/"+mcpTokenFile+")")
	noAuth := fs.Bool("no-auth", false, "with --http on a loopback address: accept requests without a token")
	var origins stringList
	fs.Var(&origins, "allow-origin", "a browser origin allowed besides loopback ones (repeatable), e.g. https://tools.example")
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	if *token == "" {
		// Read here, not as the flag's default, which usage errors print.
		*token = os.Getenv("QUIRE_MCP_TOKEN")
	}
	if *noAuth && *token != "" {
		return usageErr("--no-auth and --token (or QUIRE_MCP_TOKEN) together: choose one")
	}
	if st, err := os.Stat(c.vault); err != nil || !st.IsDir() {
		return fmt.Errorf("vault %s: not a folder", c.vault)
	}
	if *addr != "" {
		if err := mcp.CheckListen(*addr, *token); err != nil {
			return usageErr("--http: %v", err)
		}
		if host, _, _ := net.SplitHostPort(*addr); *noAuth && !mcp.Loopback(host) {
			return usageErr("--no-auth: only on a loopback address, and %s is reachable from other machines", *addr)
		}
		if *token == "" && !*noAuth {
			t, fresh, path, err := mcpToken(state.Resolve(c.vault, c.state))
			if err != nil {
				return err
			}
			*token = t
			if fresh {
				// Shown this once; after that it is only in the file.
				fmt.Fprintf(os.Stderr, "quire: MCP token (kept in %s): %s\n", path, t)
			} else {
				fmt.Fprintf(os.Stderr, "quire: MCP token in %s\n", path)
			}
		}
	}
	b := &vaultBackend{c: c, idle: mcpIdle}
	defer b.close()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := mcp.NewServer(b, mcp.Options{Version: version, Log: log})
	if *addr == "" {
		err := srv.Run(ctx, &sdk.StdioTransport{})
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			return nil // interrupted, or the client closed stdin
		}
		return err
	}
	return serveMCPHTTP(ctx, srv, *addr, *token, origins)
}

// mcpTokenFile holds the generated MCP token in the state folder.
const mcpTokenFile = "mcp-token"

// mcpToken returns the token kept in the state folder, generating it
// (32 random bytes, hex, file mode 0600) when there is none; fresh says
// it was just made.
func mcpToken(stateDir string) (token string, fresh bool, path string, err error) {
	path = filepath.Join(stateDir, mcpTokenFile)
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); len(t) >= mcp.MinTokenLength {
			return t, false, path, nil
		}
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", false, path, fmt.Errorf("mcp token: %w", err)
	}
	var rnd [32]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", false, path, fmt.Errorf("mcp token: %w", err)
	}
	token = hex.EncodeToString(rnd[:])
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(token+"\n"), 0o600); err != nil {
		return "", false, path, fmt.Errorf("mcp token: %w", err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return "", false, path, fmt.Errorf("mcp token: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", false, path, fmt.Errorf("mcp token: %w", err)
	}
	return token, true, path, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func serveMCPHTTP(ctx context.Context, srv *sdk.Server, addr, token string, origins []string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{Handler: mcp.NewHTTPHandler(srv, token, origins...), ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(l) }()
	auth := "no token (--no-auth)"
	if token != "" {
		auth = "bearer token required"
	}
	fmt.Fprintf(os.Stderr, "quire: MCP on http://%s/ (%s; Ctrl-C to stop)\n", l.Addr(), auth)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = hs.Shutdown(sctx)
	<-served
	return err
}

// vaultBackend picks a backend for each call: the sidecar serving the
// vault while one runs (it holds the index's lock), else the engine opened
// in this process. An engine opened here is closed after mcpIdle without
// calls, so that `quire serve` can start between a client's questions.
type vaultBackend struct {
	c    common
	idle time.Duration

	mu     sync.Mutex
	rem    *remote
	loc    *engine.Engine
	users  int         // calls using loc
	closer *time.Timer // closes loc when idle
}

// acquire returns the backend for one call and a function to call after.
func (v *vaultBackend) acquire(ctx context.Context) (mcp.Backend, func(), error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.loc != nil {
		return v.useLocal()
	}
	if v.rem != nil {
		select {
		case <-v.rem.c.Done(): // the sidecar stopped: look again
			v.rem.close()
			v.rem = nil
		default:
			return v.rem.r, func() {}, nil
		}
	}
	if r := attach(ctx, v.c); r != nil {
		v.rem = r
		return r.r, func() {}, nil
	}
	e, err := engine.Open(engine.Setup{Vault: v.c.vault, State: v.c.state})
	if errors.Is(err, state.ErrLocked) {
		// A sidecar took the lock since we looked, or is still starting.
		if r := attach(ctx, v.c); r != nil {
			v.rem = r
			return r.r, func() {}, nil
		}
		return nil, nil, fmt.Errorf("%w; if it is `quire serve`, wait until it is ready", err)
	}
	if err != nil {
		return nil, nil, err
	}
	// Bring the index up to date before the first answer, as `quire
	// search` does; a pass with nothing changed only reads the folder.
	if _, err := e.Update(ctx); err != nil {
		e.Close()
		return nil, nil, err
	}
	if e.HasVectors() {
		if err := e.EnableDense(ctx); err != nil {
			e.Close()
			return nil, nil, err
		}
	}
	v.loc = e
	return v.useLocal()
}

// useLocal counts a call on the local engine; v.mu is held.
func (v *vaultBackend) useLocal() (mcp.Backend, func(), error) {
	if v.closer != nil {
		v.closer.Stop()
		v.closer = nil
	}
	v.users++
	return v.loc, v.release, nil
}

func (v *vaultBackend) release() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.users--
	if v.users == 0 && v.loc != nil {
		v.closer = time.AfterFunc(v.idle, v.closeIdle)
	}
}

func (v *vaultBackend) closeIdle() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.users == 0 && v.loc != nil {
		v.loc.Close()
		v.loc = nil
	}
}

// close releases what is open, after the server has stopped.
func (v *vaultBackend) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closer != nil {
		v.closer.Stop()
	}
	if v.loc != nil {
		v.loc.Close()
		v.loc = nil
	}
	if v.rem != nil {
		v.rem.close()
		v.rem = nil
	}
}

// with runs f on the backend for one call.
func with[T any](ctx context.Context, v *vaultBackend, f func(mcp.Backend) (T, error)) (T, error) {
	b, done, err := v.acquire(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	defer done()
	return f(b)
}

// Via names who answers now, for the status tool.
func (v *vaultBackend) Via() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rem != nil {
		return v.rem.r.Via()
	}
	return "this process"
}

func (v *vaultBackend) Status(ctx context.Context) (engine.Status, error) {
	return with(ctx, v, func(b mcp.Backend) (engine.Status, error) { return b.Status(ctx) })
}

func (v *vaultBackend) Reindex(ctx context.Context, full bool, progress func(engine.Progress)) (engine.Reindexed, error) {
	return with(ctx, v, func(b mcp.Backend) (engine.Reindexed, error) { return b.Reindex(ctx, full, progress) })
}

func (v *vaultBackend) Search(ctx context.Context, q engine.Query) (search.Result, error) {
	return with(ctx, v, func(b mcp.Backend) (search.Result, error) { return b.Search(ctx, q) })
}

func (v *vaultBackend) Note(ctx context.Context, path string) (string, error) {
	return with(ctx, v, func(b mcp.Backend) (string, error) { return b.Note(ctx, path) })
}

func (v *vaultBackend) Ask(ctx context.Context, q engine.Question, onDelta func(string)) (ask.Answer, error) {
	return with(ctx, v, func(b mcp.Backend) (ask.Answer, error) { return b.Ask(ctx, q, onDelta) })
}
