package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/internal/vaultgen"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/state"
)

// TestMain lets the test binary act as the quire command, so that tests can
// run `quire serve` as a real child process (signals, SIGKILL, exit codes)
// without building the binary first.
func TestMain(m *testing.M) {
	if os.Getenv("QUIRE_TEST_AS_QUIRE") == "1" {
		main()
		os.Exit(0)
	}
	if os.Getenv("QUIRE_TEST_AS_PARENT") == "1" {
		actAsParent()
	}
	os.Exit(m.Run())
}

// child is `quire ARGS…` running as a separate process.
type child struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startQuire(t testing.TB, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "QUIRE_TEST_AS_QUIRE=1")
	c := &child{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			_ = cmd.Process.Kill()
			<-c.exited
		}
	})
	return c
}

// wait waits for the child to exit and returns its error.
func (c *child) wait(t testing.TB, d time.Duration) error {
	t.Helper()
	select {
	case err := <-c.exited:
		c.exited <- err
		return err
	case <-time.After(d):
		t.Fatalf("quire did not exit within %s; stderr:\n%s", d, c.stderr)
		return nil
	}
}

// attachTo waits until the sidecar serving stateDir answers.
func attachTo(t testing.TB, c *child, stateDir string) (*client.Client, state.ConnFile) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cl, cf, err := client.Attach(context.Background(), stateDir, "test")
		if err == nil {
			t.Cleanup(func() { cl.Close() })
			return cl, cf
		}
		select {
		case err := <-c.exited:
			t.Fatalf("quire exited (%v) before serving; stderr:\n%s", err, c.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sidecar after 20s: %v; stderr:\n%s", err, c.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// keywordsOnly writes a config that turns the embedder off, so that tests
// about serving do not spend their time embedding.
func keywordsOnly(t testing.TB, stateDir string) {
	t.Helper()
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stateDir, config.FileName), []byte("dense:\n  embedder: none\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitIdle waits until the sidecar has finished a pass and runs none.
func waitIdle(t testing.TB, cl *client.Client, d time.Duration) proto.StatusResult {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		st, err := cl.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !st.Indexing && !st.LastIndexed.IsZero() {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("still indexing after %s: %+v", d, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeLifecycle runs `quire serve` as a process: it writes a private
// connection file, serves the CLI (which then does not trip over the
// lock), refuses a second sidecar naming the first one's pid, and on
// SIGTERM exits cleanly, removing the file and releasing the lock.
func TestServeLifecycle(t *testing.T) {
	v := writeVault(t)
	st := t.TempDir()
	keywordsOnly(t, st)
	c := startQuire(t, "serve", "--vault", v, "--state", st, "--port", "0")
	cl, cf := attachTo(t, c, st)
	if cf.PID != c.cmd.Process.Pid || cf.Protocol != proto.Version || cf.MinProtocol != proto.MinVersion || len(cf.Token) < 32 {
		t.Errorf("connection file %+v, want pid %d, protocol %d-%d, a 128-bit token", cf, c.cmd.Process.Pid, proto.MinVersion, proto.Version)
	}
	fi, err := os.Stat(filepath.Join(st, state.ConnFileName))
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("sidecar.json mode %o, want 600", mode)
	}
	waitIdle(t, cl, 10*time.Second)

	out, err := runCLI(t, "search", "--vault", v, "--state", st, "curdles")
	if err != nil || !strings.Contains(out, "rennet.md") {
		t.Errorf("search while a sidecar runs: %q, %v", out, err)
	}
	out, err = runCLI(t, "status", "--vault", v, "--state", st)
	if err != nil || !strings.Contains(out, fmt.Sprintf("Sidecar: pid %d", cf.PID)) || !strings.Contains(out, "Notes:   2") {
		t.Errorf("status while a sidecar runs: %q, %v", out, err)
	}

	second := startQuire(t, "serve", "--vault", v, "--state", st)
	if err := second.wait(t, 10*time.Second); err == nil || !strings.Contains(second.stderr.String(), fmt.Sprintf("pid %d", cf.PID)) {
		t.Errorf("second sidecar: exit %v, stderr %q; want a failure naming pid %d", err, second.stderr, cf.PID)
	}

	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := c.wait(t, 10*time.Second); err != nil {
		t.Errorf("exit after SIGTERM: %v; stderr:\n%s", err, c.stderr)
	}
	<-cl.Done()
	if _, err := os.Stat(filepath.Join(st, state.ConnFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sidecar.json after a clean exit: %v, want it removed", err)
	}
	d, err := state.Open(st)
	if err != nil {
		t.Fatalf("lock after a clean exit: %v", err)
	}
	d.Close()

	// Without a sidecar, the CLI works in-process again.
	out, err = runCLI(t, "status", "--vault", v, "--state", st)
	if err != nil || strings.Contains(out, "Sidecar:") || !strings.Contains(out, "Notes:   2") {
		t.Errorf("status without a sidecar: %q, %v", out, err)
	}
}

// TestServeKilledWhileIndexing kills the sidecar with SIGKILL in the middle
// of its first pass over a generated vault, starts it again, and checks
// that it opens, finishes incrementally, and answers every query exactly
// as an index built from scratch does.
func TestServeKilledWhileIndexing(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a generated vault twice")
	}
	// The kill must land after the first batch (200 notes) is on disk and
	// before the pass ends. Progress events come at most four a second, so
	// on a fast machine a small vault is done before one arrives mid-pass:
	// then try again with a bigger one.
	var (
		v, st    string
		paths    []string
		killedAt proto.IndexProgress
	)
	for notes := 500; ; notes *= 4 {
		if notes > 8000 {
			t.Fatal("indexing finished before any mid-pass progress event, even on 8,000 notes")
		}
		v, st = t.TempDir(), t.TempDir()
		var err error
		if paths, err = vaultgen.Write(v, vaultgen.Options{Notes: notes, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		keywordsOnly(t, st)
		first := startQuire(t, "serve", "--vault", v, "--state", st)
		cl, _ := attachTo(t, first, st)
		p, ok := midPass(t, cl, first)
		if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		first.wait(t, 10*time.Second)
		if ok {
			killedAt = p
			break
		}
		t.Logf("%d notes indexed before a mid-pass event; trying a bigger vault", notes)
	}
	t.Logf("killed at %d/%d notes", killedAt.Done, killedAt.Total)

	// The killed sidecar left its connection file; its pid is dead, so
	// the CLI does not try it, and a new sidecar takes over.
	if _, _, err := client.Attach(context.Background(), st, "test"); !errors.Is(err, client.ErrNoSidecar) {
		t.Errorf("attach to a killed sidecar: %v, want ErrNoSidecar", err)
	}
	began := time.Now()
	second := startQuire(t, "serve", "--vault", v, "--state", st)
	cl2, _ := attachTo(t, second, st)
	status := waitIdle(t, cl2, 60*time.Second)
	t.Logf("restarted sidecar caught up in %s", time.Since(began).Round(time.Millisecond))
	if status.Notes != len(paths) {
		t.Errorf("after restart: %d notes, want %d", status.Notes, len(paths))
	}
	m := regexp.MustCompile(`changed=(\d+)`).FindStringSubmatch(second.stderr.String())
	if m == nil {
		t.Fatalf("no index pass in the second sidecar's log:\n%s", second.stderr)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 || n >= len(paths) {
		t.Errorf("the restart re-indexed %d notes, want some but fewer than %d (incremental)", n, len(paths))
	} else {
		t.Logf("the restart indexed the remaining %d notes", n)
	}

	began = time.Now()
	fresh := freshIndex(t, v)
	t.Logf("fresh index in %s", time.Since(began).Round(time.Millisecond))
	queries, err := vaultgen.Queries(v, paths, 200, 7, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Bleve's BM25 scores shift while it merges segments in the
	// background (the same passage scores 0.0146, then 0.0138 a second
	// later), so two indexes of the same notes rank alike only once both
	// have settled. What must match is what the index holds: every query
	// finds the same passages, with the same byte ranges and text.
	compared := 0
	for _, q := range queries {
		want, err := fresh.Search(context.Background(), q.Query, 1000, search.BM25)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) >= 100 {
			continue // the server returns at most 100: the cut depends on scores
		}
		got, err := cl2.Search(context.Background(), proto.SearchQuery{Query: q.Query, K: 100, Channel: proto.ChannelBM25})
		if err != nil {
			t.Fatal(err)
		}
		gotPs := make([]search.Passage, len(got.Passages))
		for i, p := range got.Passages {
			gotPs[i] = search.Passage{ID: p.ID, Start: p.Start, End: p.End, Text: p.Text}
		}
		if g, w := matchSet(gotPs), matchSet(want); g != w {
			t.Errorf("query %q after a kill:\n got %s\nwant %s", q.Query, g, w)
		}
		compared++
	}
	t.Logf("%d queries with fewer than 100 matches compared", compared)
	if compared < 20 {
		t.Errorf("only %d of %d queries had fewer than 100 matches to compare", compared, len(queries))
	}
}

// midPass waits for an index.progress event past 300 notes and before the
// end of the pass; it reports false when the pass ends first.
func midPass(t *testing.T, cl *client.Client, c *child) (proto.IndexProgress, bool) {
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ev, ok := <-cl.Events():
			if !ok {
				t.Fatalf("connection closed before progress; stderr:\n%s", c.stderr)
			}
			var p proto.IndexProgress
			if ev.Type == proto.TypeIndexChanged {
				return p, false // the pass is over
			}
			if ev.Type != proto.TypeIndexProgress {
				continue
			}
			if err := ev.Decode(&p); err != nil {
				t.Fatal(err)
			}
			if p.Phase == proto.PhaseIndex && p.Done >= 300 && p.Done < p.Total {
				return p, true
			}
		case <-timeout:
			t.Fatal("no index.progress mid-pass within 60s")
		}
	}
}

// freshIndex indexes v from scratch in a new state folder.
func freshIndex(t *testing.T, v string) *search.Searcher {
	t.Helper()
	d, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(v, d, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close(); d.Close() })
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	langs, err := ix.Languages()
	if err != nil {
		t.Fatal(err)
	}
	return &search.Searcher{BM25: ix.BM25, Langs: langs}
}

// matchSet renders the passages a query found, in id order: id, byte
// range and a hash of the text.
func matchSet(ps []search.Passage) string {
	keys := make([]string, len(ps))
	for i, p := range ps {
		keys[i] = fmt.Sprintf("%s[%d:%d]%x", p.ID, p.Start, p.End, sha256.Sum256([]byte(p.Text)))
	}
	sort.Strings(keys)
	return strings.Join(keys, "\n")
}
