//go:build !windows

package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/state"
)

// TestServeExitsWithItsParent kills the process that started `quire serve`
// with SIGKILL, as a force-quit of Obsidian would, and checks that the
// engine notices and shuts down cleanly (sidecar.json removed) within 5 s:
// through --parent-pid alone (stdin not a pipe), and through the stdin
// pipe alone (--parent-pid names a process that stays).
func TestServeExitsWithItsParent(t *testing.T) {
	for _, tc := range []struct {
		name, stdin, parent string
	}{
		{"parent pid", "none", "%PID%"},
		{"stdin pipe", "pipe", strconv.Itoa(os.Getpid())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			subreaper(t)
			v := writeVault(t)
			st := t.TempDir()
			keywordsOnly(t, st)
			parent := exec.Command(os.Args[0])
			parent.Env = append(os.Environ(), "QUIRE_TEST_AS_PARENT=1", "QUIRE_PARENT_STDIN="+tc.stdin,
				"QUIRE_PARENT_ARGS=serve --vault "+v+" --state "+st+" --parent-pid "+tc.parent)
			// A file, not a pipe: Wait must not wait for the engine, which
			// inherits it, to close it.
			logf, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
			if err != nil {
				t.Fatal(err)
			}
			defer logf.Close()
			parent.Stderr = logf
			stderr := fileText(logf.Name())
			out, err := parent.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = parent.Process.Kill(); _ = parent.Wait() })
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("parent: %v; stderr:\n%s", err, stderr)
			}
			pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "engine "))
			if err != nil {
				t.Fatalf("parent said %q", line)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL); reap(pid) })

			// Serving first: the engine has its index open and sidecar.json written.
			deadline := time.Now().Add(30 * time.Second)
			for {
				cl, cf, err := client.Attach(context.Background(), st, "test")
				if err == nil {
					cl.Close()
					if cf.PID != pid {
						t.Fatalf("sidecar.json names pid %d, want %d", cf.PID, pid)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("engine not serving after 30 s: %v; stderr:\n%s", err, stderr)
				}
				time.Sleep(20 * time.Millisecond)
			}

			if err := parent.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = parent.Wait()
			killed := time.Now()
			for !exited(pid) {
				if time.Since(killed) > 5*time.Second {
					t.Fatalf("engine %d still runs 5 s after its parent was killed; stderr:\n%s", pid, stderr)
				}
				time.Sleep(50 * time.Millisecond)
			}
			t.Logf("engine exited %v after its parent was killed", time.Since(killed).Round(10*time.Millisecond))
			if _, err := os.Stat(filepath.Join(st, state.ConnFileName)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("sidecar.json after the engine stopped: %v, want it removed (a clean shutdown); stderr:\n%s", err, stderr)
			}
		})
	}
}

// TestServeShutdownRequest stops the engine with a shutdown request over
// the websocket, the way the plugin does on every OS: it answers with its
// pid, then exits cleanly.
func TestServeShutdownRequest(t *testing.T) {
	v := writeVault(t)
	st := t.TempDir()
	keywordsOnly(t, st)
	c := startQuire(t, "serve", "--vault", v, "--state", st)
	cl, _ := attachTo(t, c, st)
	var res proto.ShutdownResult
	if err := cl.Call(context.Background(), proto.TypeShutdown, proto.Shutdown{}, &res); err != nil {
		t.Fatal(err)
	}
	if res.PID != c.cmd.Process.Pid {
		t.Errorf("shutdown.result pid %d, want %d", res.PID, c.cmd.Process.Pid)
	}
	if err := c.wait(t, 20*time.Second); err != nil {
		t.Errorf("exit after shutdown: %v; stderr:\n%s", err, c.stderr)
	}
	if _, err := os.Stat(filepath.Join(st, state.ConnFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sidecar.json after shutdown: %v, want it removed", err)
	}
}

// fileText prints as a file's text at the time it is printed.
type fileText string

func (f fileText) String() string {
	b, _ := os.ReadFile(string(f))
	return string(b)
}

// exited reports whether pid has ended: reaped here when it was
// reparented to this process (see subreaper), else no longer signalable.
func exited(pid int) bool {
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	if got == pid {
		return true
	}
	if err == nil {
		return false // our child, still running
	}
	return syscall.Kill(pid, 0) != nil
}

func reap(pid int) {
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
}
