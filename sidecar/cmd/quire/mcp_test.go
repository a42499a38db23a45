package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/mcp"
	"github.com/quire-app/quire/sidecar/state"
)

// TestMCPStdio runs `quire mcp` as a child process and talks to it over
// its stdin and stdout with the SDK's client, as Claude Code does: the
// tools list, a search, a refused traversal. Anything else on stdout
// would break the protocol and fail the calls.
func TestMCPStdio(t *testing.T) {
	v := writeVault(t)
	st := t.TempDir()
	keywordsOnly(t, st)
	cmd := exec.Command(os.Args[0], "mcp", "--vault", v, "--state", st)
	cmd.Env = append(os.Environ(), "QUIRE_TEST_AS_QUIRE=1")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 6 {
		t.Errorf("%d tools, want 6", len(tools.Tools))
	}
	var status mcp.Status
	callTool(t, cs, "status", nil, &status)
	if status.Notes != 2 || status.Via != "this process" {
		t.Errorf("status %+v, want 2 notes answered in process", status)
	}
	var found mcp.SearchResult
	callTool(t, cs, "search_knowledge", map[string]any{"query": "what curdles milk"}, &found)
	if len(found.Passages) == 0 || found.Passages[0].Path != "rennet.md" {
		t.Errorf("search: %+v, want rennet.md first", found)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_note", Arguments: map[string]any{"path": "../../etc/passwd.md"}})
	if err != nil || !res.IsError {
		t.Errorf("get_note outside the vault: %+v, %v; want a tool error", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v; stderr:\n%s", err, stderr)
	}
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args any, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %+v", name, res.Content)
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestMCPBackendSwitches follows the vault's index as it moves: opened in
// process (and let go when idle, so a sidecar can start), then through a
// running sidecar, then in process again once the sidecar stops.
func TestMCPBackendSwitches(t *testing.T) {
	v := writeVault(t)
	st := t.TempDir()
	keywordsOnly(t, st)
	ctx := context.Background()
	b := &vaultBackend{c: common{vault: v, state: st}, idle: 20 * time.Millisecond}
	defer b.close()

	got, err := b.Status(ctx)
	if err != nil || b.Via() != "this process" || got.Notes != 2 {
		t.Fatalf("without a sidecar: %+v via %s, %v", got, b.Via(), err)
	}
	// Idle, the index is closed and its lock released.
	deadline := time.Now().Add(5 * time.Second)
	for {
		d, err := state.Open(st)
		if err == nil {
			d.Close()
			break
		}
		if !errors.Is(err, state.ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("lock still held after idle: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}

	c := startQuire(t, "serve", "--vault", v, "--state", st, "--port", "0")
	cl, cf := attachTo(t, c, st)
	waitIdle(t, cl, 10*time.Second)
	got, err = b.Status(ctx)
	if err != nil || !strings.Contains(b.Via(), "sidecar") || !strings.Contains(b.Via(), "pid") || got.Notes != 2 {
		t.Errorf("with a sidecar (pid %d): %+v via %s, %v", cf.PID, got, b.Via(), err)
	}
	found, err := b.Search(ctx, engine.Query{Text: "curdles", K: 3})
	if err != nil || len(found.Passages) == 0 || found.Passages[0].Path != "rennet.md" {
		t.Errorf("search through the sidecar: %+v, %v", found, err)
	}

	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := c.wait(t, 10*time.Second); err != nil {
		t.Fatalf("sidecar exit: %v", err)
	}
	<-cl.Done()
	got, err = b.Status(ctx)
	if err != nil || b.Via() != "this process" {
		t.Errorf("after the sidecar stopped: %+v via %s, %v; want in process again", got, b.Via(), err)
	}
}

func TestMCPFlags(t *testing.T) {
	v := writeVault(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--vault", v, "--http", "0.0.0.0:0"}, "token is required"},
		{[]string{"mcp", "--vault", v, "--http", "0.0.0.0:0", "--token", "short"}, "at least 16"},
		{[]string{"mcp", "--vault", v, "--http", "8765"}, "host:port"},
		{[]string{"mcp"}, "--vault is required"},
	}
	t.Setenv("QUIRE_MCP_TOKEN", "")
	for _, tt := range tests {
		_, err := runCLI(t, tt.args...)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("quire %v = %v, want a usage error saying %q", tt.args, err, tt.want)
		}
	}
	// The token may come from the environment instead of the command line.
	t.Setenv("QUIRE_MCP_TOKEN", "short")
	_, err := runCLI(t, "mcp", "--vault", v, "--http", "0.0.0.0:0")
	if err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("QUIRE_MCP_TOKEN=short: %v, want the token checked", err)
	}
}

// TestMCPHTTPTokenByDefault: `quire mcp --http` on loopback without
// --token generates a token, keeps it 0600 in the state folder and
// refuses requests without it; --no-auth is refused off loopback.
func TestMCPHTTPTokenByDefault(t *testing.T) {
	v := writeVault(t)
	t.Setenv("QUIRE_MCP_TOKEN", "")
	for _, args := range [][]string{
		{"mcp", "--vault", v, "--http", "0.0.0.0:0", "--no-auth"},
		{"mcp", "--vault", v, "--http", "127.0.0.1:0", "--no-auth", "--token", "0123456789abcdef0123"},
	} {
		if _, err := runCLI(t, args...); err == nil {
			t.Errorf("quire %v: accepted", args)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"mcp", "--vault", v, "--http", addr}) }()
	defer func() { cancel(); <-done }()
	post := func(token string) int {
		req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				return resp.StatusCode
			}
			select {
			case err := <-done:
				t.Fatalf("quire mcp ended: %v", err)
			case <-time.After(50 * time.Millisecond): // not listening yet
			}
		}
	}
	if got := post(""); got != http.StatusUnauthorized {
		t.Errorf("no token: HTTP %d, want 401", got)
	}
	path := filepath.Join(v, ".quire", mcpTokenFile)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, st.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if got := post(strings.TrimSpace(string(b))); got == http.StatusUnauthorized {
		t.Errorf("the kept token: HTTP %d", got)
	}
	if again, fresh, _, err := mcpToken(filepath.Join(v, ".quire")); err != nil || fresh || again != strings.TrimSpace(string(b)) {
		t.Errorf("second start: token %q fresh %v %v, want the kept one", again, fresh, err)
	}
}
