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
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/grep"
	"github.com/quire-app/quire/sidecar/mcp"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/state"
)

// sidecarIdle is how long a sidecar `quire mcp` started stays after its
// last client has gone: long enough for a client that restarts, or a
// `quire search` soon after, to find it warm.
const sidecarIdle = 30 * time.Second

// cmdMCP serves the vault to MCP clients: over stdio (what Claude Code and
// Claude Desktop start), or over Streamable HTTP with --http. Nothing but
// the protocol goes to stdout; warnings go to stderr. It answers through
// the vault's sidecar, starting one that its peers share when none runs.
func cmdMCP(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("mcp", &c)
	addr := fs.String("http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	token := fs.String("token", "", "bearer token HTTP clients must send (default $QUIRE_MCP_TOKEN, else one generated and kept in <state>/"+mcpTokenFile+")")
	noAuth := fs.Bool("no-auth", false, "with --http on a loopback address: accept requests without a token")
	idle := fs.Duration("sidecar-idle", sidecarIdle, "how long a sidecar this starts for the vault stays once no client is connected")
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
				fmt.Fprintf(os.Stderr, "quire: MCP token (kept in %s): %s\n", shown(path), t)
			} else {
				fmt.Fprintf(os.Stderr, "quire: MCP token in %s\n", shown(path))
			}
		}
	}
	if *idle <= 0 {
		return usageErr("--sidecar-idle: %s is not a positive duration", *idle)
	}
	b := &sharedBackend{c: c, idle: *idle}
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

// sharedBackend answers every call through the sidecar that serves the
// vault: the plugin's, or one it starts for the vault when none runs
// (client.AttachOrStart), which every `quire mcp`, the plugin and the CLI
// then share, and which stops once none of them has been connected for
// idle. No `quire mcp` opens the index itself, so none locks the others
// out.
type sharedBackend struct {
	c    common
	idle time.Duration

	mu  sync.Mutex // held while attaching, so one call starts the sidecar
	rem *remote
}

// acquire returns the sidecar's backend for one call, attaching (or
// starting one) when there is no live connection.
func (v *sharedBackend) acquire(ctx context.Context) (mcp.Backend, func(), error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rem != nil {
		select {
		case <-v.rem.c.Done(): // the sidecar stopped: attach again
			v.rem.close()
			v.rem = nil
		default:
			return v.rem.r, func() {}, nil
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("start a sidecar: %w", err)
	}
	vaultDir, err := filepath.Abs(v.c.vault)
	if err != nil {
		return nil, nil, err
	}
	stateDir, err := filepath.Abs(state.Resolve(v.c.vault, v.c.state))
	if err != nil {
		return nil, nil, err
	}
	cl, cf, err := client.AttachOrStart(ctx, client.Start{Exe: exe, Vault: vaultDir, State: stateDir, Idle: v.idle,
		Name: "quire-mcp " + version})
	if err != nil {
		return nil, nil, err
	}
	if !sameDir(cl.Welcome().Vault, vaultDir) {
		cl.Close()
		return nil, nil, fmt.Errorf("the sidecar (pid %d) of state folder %s serves %s, not %s", cf.PID, stateDir, cl.Welcome().Vault, vaultDir)
	}
	// A sidecar just started reads the vault first; answer from the whole
	// index, as a search in process would after its pass.
	if err := firstPass(ctx, cl); err != nil {
		cl.Close()
		return nil, nil, err
	}
	v.rem = &remote{c: cl, r: client.NewRemote(cl, cf.PID), cf: cf}
	return v.rem.r, func() {}, nil
}

// firstPass waits until the sidecar has finished its first pass over the
// vault (the keyword index; vectors follow in the background).
func firstPass(ctx context.Context, cl *client.Client) error {
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

// close lets go of the sidecar (which stops once no client remains).
func (v *sharedBackend) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rem != nil {
		v.rem.close()
		v.rem = nil
	}
}

// with runs f on the backend for one call.
func with[T any](ctx context.Context, v *sharedBackend, f func(mcp.Backend) (T, error)) (T, error) {
	b, done, err := v.acquire(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	defer done()
	return f(b)
}

// Via names who answers now, for the status tool.
func (v *sharedBackend) Via() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rem != nil {
		return v.rem.r.Via()
	}
	return "no sidecar yet"
}

func (v *sharedBackend) Status(ctx context.Context) (engine.Status, error) {
	return with(ctx, v, func(b mcp.Backend) (engine.Status, error) { return b.Status(ctx) })
}

func (v *sharedBackend) Reindex(ctx context.Context, full bool, progress func(engine.Progress)) (engine.Reindexed, error) {
	return with(ctx, v, func(b mcp.Backend) (engine.Reindexed, error) { return b.Reindex(ctx, full, progress) })
}

func (v *sharedBackend) Search(ctx context.Context, q engine.Query) (search.Result, error) {
	return with(ctx, v, func(b mcp.Backend) (search.Result, error) { return b.Search(ctx, q) })
}

func (v *sharedBackend) Note(ctx context.Context, path string, forMCP bool) (string, error) {
	return with(ctx, v, func(b mcp.Backend) (string, error) { return b.Note(ctx, path, forMCP) })
}

func (v *sharedBackend) Grep(ctx context.Context, o grep.Options, forMCP bool) (grep.Result, error) {
	return with(ctx, v, func(b mcp.Backend) (grep.Result, error) { return b.Grep(ctx, o, forMCP) })
}

func (v *sharedBackend) Ask(ctx context.Context, q engine.Question, onDelta func(string)) (ask.Answer, error) {
	return with(ctx, v, func(b mcp.Backend) (ask.Answer, error) { return b.Ask(ctx, q, onDelta) })
}
