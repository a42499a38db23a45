package client_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/state"
)

// quire is the quire program built from this tree, once per test run,
// for the tests that run it as a process of its own.
var quire struct {
	once sync.Once
	dir  string
	exe  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if quire.dir != "" {
		os.RemoveAll(quire.dir)
	}
	os.Exit(code)
}

// quireExe builds cmd/quire (go build, as scripts/build-engine does) and
// returns the program's path.
func quireExe(t *testing.T) string {
	t.Helper()
	quire.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			quire.err = err
			return
		}
		if quire.dir, quire.err = os.MkdirTemp("", "quire-client-test"); quire.err != nil {
			return
		}
		quire.exe = filepath.Join(quire.dir, "quire")
		out, err := exec.Command(goTool, "build", "-o", quire.exe, "github.com/quire-app/quire/sidecar/cmd/quire").CombinedOutput()
		if err != nil {
			quire.err = fmt.Errorf("go build cmd/quire: %v\n%s", err, out)
		}
	})
	if quire.err != nil {
		t.Fatal(quire.err)
	}
	return quire.exe
}

// TestShared drives client.Shared against real sidecars, each a quire
// process of its own: it attaches to the sidecar that runs (one this test
// started with quire serve), and when that one dies, its next call
// attaches again, to a sidecar it starts itself since none runs, which
// stops by itself once the Shared lets go.
func TestShared(t *testing.T) {
	exe := quireExe(t)
	v, st := cheeseVault(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	// A sidecar runs: the Shared attaches to it and starts none.
	logPath := filepath.Join(t.TempDir(), "serve.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	serve := exec.Command(exe, "serve", "--vault", v, "--state", st, "--port", "0")
	serve.Stdout, serve.Stderr = logf, logf
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { serve.Wait(); close(exited) }()
	t.Cleanup(func() { serve.Process.Kill(); <-exited })
	for {
		cl, _, err := client.Attach(ctx, st, "shared test")
		if err == nil {
			cl.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("quire serve exited: %s", readFile(logPath))
		case <-ctx.Done():
			t.Fatalf("quire serve does not serve: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	sh := client.NewShared(client.Start{Exe: exe, Vault: v, State: st, Idle: 2 * time.Second, Name: "shared test", Wait: time.Minute})
	defer sh.Close()
	search := func(when string) {
		t.Helper()
		res, err := sh.Search(ctx, engine.Query{Text: "curdles", K: 3})
		if err != nil || len(res.Passages) == 0 || res.Passages[0].Path != "rennet.md" {
			t.Fatalf("%s: search %+v, %v; sidecar log:\n%s", when, res, err, readFile(filepath.Join(st, client.LogName)))
		}
	}
	search("with quire serve running")
	if want := fmt.Sprintf("(pid %d)", serve.Process.Pid); !strings.HasSuffix(sh.Via(), want) {
		t.Fatalf("via %q, want the running sidecar %s", sh.Via(), want)
	}

	// It dies: the next call attaches again, to a sidecar the Shared
	// starts, since none runs now.
	serve.Process.Kill()
	<-exited
	search("after the sidecar died")
	cf, err := state.ReadConnFile(filepath.Join(st, state.ConnFileName))
	if err != nil {
		t.Fatal(err)
	}
	if cf.PID == serve.Process.Pid || cf.PID == os.Getpid() || !strings.HasSuffix(sh.Via(), fmt.Sprintf("(pid %d)", cf.PID)) {
		t.Fatalf("via %q, connection file pid %d; want a sidecar started anew (quire serve was pid %d)", sh.Via(), cf.PID, serve.Process.Pid)
	}
	if h := state.ReadHolder(st); !strings.HasPrefix(h.Cmd, "quire serve --idle") {
		t.Errorf("the vault is held by %q, want the sidecar the Shared started (quire serve --idle)", h.Cmd)
	}

	// Let go: with no client left, the sidecar it started stops by itself.
	sh.Close()
	deadline := time.Now().Add(30 * time.Second)
	for state.Held(st) {
		if time.Now().After(deadline) {
			if p, err := os.FindProcess(cf.PID); err == nil {
				p.Kill() // started by this test, through the Shared
			}
			t.Fatalf("the sidecar the Shared started (pid %d) still holds the vault 30s after it let go", cf.PID)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
