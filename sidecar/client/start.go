package client

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/state"
)

// LogName is the file in the state folder that a sidecar started by
// [AttachOrStart] writes its log to (it has no terminal).
const LogName = "sidecar.log"

// Start says how [AttachOrStart] starts a sidecar shared by several front
// ends (MCP clients, the plugin, the CLI) when none serves the vault.
type Start struct {
	// Exe is the quire program to run.
	Exe string
	// Vault is the vault folder; State its resolved state folder.
	Vault, State string
	// Idle is how long the sidecar stays once its last client has gone.
	Idle time.Duration
	// Name is the client name sent in hello.
	Name string
	// Wait bounds how long a starting sidecar gets to answer (opening a
	// large index and loading the embedder); 0 means 2 minutes.
	Wait time.Duration
}

// startTries bounds how often AttachOrStart starts a sidecar that then
// ends without serving (the lock was free each time).
const startTries = 3

// AttachOrStart returns a client of the sidecar serving the state folder,
// starting one when none runs: `quire serve --idle`, detached from this
// process (it outlives it, and stops by itself once no client has been
// connected for s.Idle). Any number of callers may race: the state
// folder's lock lets one sidecar start, and the others attach to it. When
// another kind of process (quire index…) holds the folder, the error is a
// *state.LockedError naming it.
func AttachOrStart(ctx context.Context, s Start) (*Client, state.ConnFile, error) {
	if s.Wait <= 0 {
		s.Wait = 2 * time.Minute
	}
	deadline := time.Now().Add(s.Wait)
	var (
		child  *exec.Cmd
		exited chan struct{}
		tries  int
	)
	for {
		c, cf, err := Attach(ctx, s.State, s.Name)
		if err == nil {
			return c, cf, nil
		}
		// Whether the lock is held says whether a process works on the
		// folder; the pid in its file may since belong to any process.
		holding := state.Held(s.State)
		h := state.ReadHolder(s.State)
		starting := child != nil && !isClosed(exited)
		switch {
		case holding && h.Cmd != "" && !strings.HasPrefix(h.Cmd, "quire serve"):
			// Another command works on the index; a sidecar could not
			// start before it ends.
			return nil, cf, fmt.Errorf("start a sidecar: %w; try again when it has finished",
				&state.LockedError{Dir: s.State, PID: h.PID, Cmd: h.Cmd})
		case holding, starting:
			// A sidecar is starting (ours or someone else's) and has not
			// written its connection file yet: wait for it.
		default:
			if tries == startTries {
				return nil, cf, fmt.Errorf("start a sidecar: it stopped %d times without serving; its log %s ends:\n%s",
					tries, filepath.Join(s.State, LogName), logTail(filepath.Join(s.State, LogName)))
			}
			tries++
			if child, exited, err = spawn(s); err != nil {
				return nil, cf, fmt.Errorf("start a sidecar: %w", err)
			}
		}
		if time.Now().After(deadline) {
			return nil, cf, fmt.Errorf("start a sidecar: not serving after %s; its log %s ends:\n%s",
				s.Wait, filepath.Join(s.State, LogName), logTail(filepath.Join(s.State, LogName)))
		}
		select {
		case <-ctx.Done():
			return nil, cf, fmt.Errorf("start a sidecar: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// spawn starts `quire serve --idle` for s, detached, its output appended
// to the log in the state folder; exited closes when it ends (while this
// process runs, it reaps it).
func spawn(s Start) (*exec.Cmd, chan struct{}, error) {
	if err := os.MkdirAll(s.State, 0o700); err != nil {
		return nil, nil, err
	}
	logPath := filepath.Join(s.State, LogName)
	if st, err := os.Stat(logPath); err == nil && st.Size() > 1<<20 {
		_ = os.Remove(logPath) // keep it small: only the latest starts matter
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	defer logf.Close() // the child has its own copy
	cmd := exec.Command(s.Exe, "serve", "--vault", s.Vault, "--state", s.State, "--idle", s.Idle.String())
	cmd.Stdout, cmd.Stderr = logf, logf // stdin: the null device
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	return cmd, exited, nil
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// logTail returns the last lines of a log, for an error message.
func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
