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
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/mcp"
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
	b, err := newShared(c, *idle)
	if err != nil {
		return err
	}
	defer b.Close()
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

// newShared is the MCP tools' backend: the sidecar of c's vault, which
// this program starts with idle when none runs (client.Shared).
func newShared(c common, idle time.Duration) (*client.Shared, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start a sidecar: %w", err)
	}
	vaultDir, err := filepath.Abs(c.vault)
	if err != nil {
		return nil, err
	}
	stateDir, err := filepath.Abs(state.Resolve(c.vault, c.state))
	if err != nil {
		return nil, err
	}
	return client.NewShared(client.Start{Exe: exe, Vault: vaultDir, State: stateDir, Idle: idle, Name: "quire-mcp " + version}), nil
}
