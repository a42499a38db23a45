package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
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
	cmd := exec.Command(os.Args[0], "mcp", "--vault", v, "--state", st, "--sidecar-idle", "2s")
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
	if len(tools.Tools) != 8 {
		t.Errorf("%d tools, want 8", len(tools.Tools))
	}
	var status mcp.Status
	callTool(t, cs, "status", nil, &status)
	if status.Notes != 2 || !strings.Contains(status.Via, "sidecar (pid") {
		t.Errorf("status %+v, want 2 notes answered by a sidecar", status)
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
	waitReleased(t, st, 30*time.Second) // it stops once its only client has gone
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

// TestMCPSharesOneSidecar: two `quire mcp` backends that start at the same
// time with no sidecar running end up on one sidecar they started (not in
// this process), which keeps serving while either is connected and stops
// by itself once both are gone, removing its connection file and
// releasing the lock.
func TestMCPSharesOneSidecar(t *testing.T) {
	v := writeVault(t)
	st := t.TempDir()
	keywordsOnly(t, st)
	t.Setenv("QUIRE_TEST_AS_QUIRE", "1") // the sidecar started is this binary acting as quire
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := testShared(t, v, st)
	b := testShared(t, v, st)
	defer a.Close()
	defer b.Close()

	errs := make(chan error, 2)
	for _, x := range []*client.Shared{a, b} {
		go func() {
			_, err := x.Search(ctx, engine.Query{Text: "curdles", K: 3})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("search: %v; sidecar log:\n%s", err, readLog(st))
		}
	}
	cf, err := state.ReadConnFile(filepath.Join(st, state.ConnFileName))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("pid %d)", cf.PID)
	if cf.PID == os.Getpid() || !strings.HasSuffix(a.Via(), want) || !strings.HasSuffix(b.Via(), want) {
		t.Fatalf("a via %q, b via %q; want both through the sidecar in %s (pid %d)", a.Via(), b.Via(), st, cf.PID)
	}
	for _, x := range []*client.Shared{a, b} {
		found, err := x.Search(ctx, engine.Query{Text: "curdles", K: 3})
		if err != nil || len(found.Passages) == 0 || found.Passages[0].Path != "rennet.md" {
			t.Errorf("search through %s: %+v, %v", x.Via(), found, err)
		}
	}
	// A lock the sidecar holds names its real command.
	_, err = state.Open(st)
	var le *state.LockedError
	if !errors.As(err, &le) || le.PID != cf.PID || !strings.Contains(err.Error(), "`quire serve --idle 2s`") {
		t.Errorf("state.Open beside the sidecar: %v, want it to name `quire serve --idle 2s` (pid %d)", err, cf.PID)
	}

	// One client gone: the other still gets answers.
	a.Close()
	if _, err := b.Status(ctx); err != nil || !strings.HasSuffix(b.Via(), want) {
		t.Errorf("after the first client left: %v via %s", err, b.Via())
	}
	b.Close()
	waitReleased(t, st, 30*time.Second)
}

// TestMCPLockedByAnotherCommand: while another command (quire index)
// holds the vault, `quire mcp` says so by name instead of starting a
// sidecar that cannot open it.
func TestMCPLockedByAnotherCommand(t *testing.T) {
	v := writeVault(t)
	st := t.TempDir()
	keywordsOnly(t, st)
	t.Setenv("QUIRE_TEST_AS_QUIRE", "1")
	state.SetHolder("quire index")
	d, err := state.Open(st)
	state.SetHolder("")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	b := testShared(t, v, st)
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = b.Status(ctx)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("`quire index` (pid %d)", os.Getpid())) {
		t.Errorf("status while quire index holds the vault: %v, want the holder named", err)
	}
	if _, serr := os.Stat(filepath.Join(st, client.LogName)); serr == nil {
		t.Errorf("a sidecar was started although the vault was locked; its log:\n%s", readLog(st))
	}
}

// waitReleased waits until the sidecar serving stateDir has stopped: its
// connection file removed and the lock released, the last things it
// does. (Its pid would not do: an orphan nobody reaps looks alive.)
func waitReleased(t *testing.T, stateDir string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		_, err := os.Stat(filepath.Join(stateDir, state.ConnFileName))
		if errors.Is(err, os.ErrNotExist) {
			if l, err := state.Open(stateDir); err == nil {
				l.Close()
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sidecar of %s still runs after %s; its log:\n%s", stateDir, d, readLog(stateDir))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readLog(stateDir string) string {
	b, _ := os.ReadFile(filepath.Join(stateDir, client.LogName))
	return string(b)
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

// TestMCPStaleFilesOfALivePid: after a kill -9 the lock file and
// sidecar.json keep the engine's pid, which the system may give to any
// process (here this test's own). The free lock is the truth: `quire mcp`
// starts a sidecar at once instead of waiting for that process.
func TestMCPStaleFilesOfALivePid(t *testing.T) {
	v := writeVault(t)
	st := t.TempDir()
	keywordsOnly(t, st)
	t.Setenv("QUIRE_TEST_AS_QUIRE", "1")
	pid := os.Getpid()
	if err := os.WriteFile(filepath.Join(st, "lock"), []byte(fmt.Sprintf("%d\nquire serve --idle 2s\n", pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing answers there
	if err := state.WriteConnFile(filepath.Join(st, state.ConnFileName), state.ConnFile{Port: port, Token: "stale", PID: pid, Protocol: proto.Version}); err != nil {
		t.Fatal(err)
	}
	b := testShared(t, v, st)
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := b.Status(ctx); err != nil {
		t.Fatalf("status with stale files naming a live pid: %v; sidecar log:\n%s", err, readLog(st))
	}
	if cf, err := state.ReadConnFile(filepath.Join(st, state.ConnFileName)); err != nil || cf.PID == pid {
		t.Errorf("connection file %+v, %v: want a new sidecar's", cf, err)
	}
	b.Close()
	waitReleased(t, st, 30*time.Second)
}

// TestServeLockedExitCode: `quire serve` on a vault another quire holds
// (here through another state folder) exits with exitLocked, which the
// plugin tells from a crash.
func TestServeLockedExitCode(t *testing.T) {
	v := writeVault(t)
	d, err := state.OpenFor(v, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c := startQuire(t, "serve", "--vault", v, "--state", t.TempDir())
	var ee *exec.ExitError
	if err := c.wait(t, 30*time.Second); !errors.As(err, &ee) || ee.ExitCode() != exitLocked {
		t.Errorf("quire serve on a held vault: %v, want exit code %d; stderr:\n%s", err, exitLocked, c.stderr)
	}
	if !strings.Contains(c.stderr.String(), "in use by another quire") {
		t.Errorf("stderr does not say the vault is in use:\n%s", c.stderr)
	}
}

// testShared is quire mcp's backend for vault v and state folder st.
func testShared(t *testing.T, v, st string) *client.Shared {
	t.Helper()
	b, err := newShared(common{vault: v, state: st}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
