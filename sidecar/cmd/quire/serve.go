package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/quire-app/quire/sidecar/buildinfo"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/server"
	"github.com/quire-app/quire/sidecar/state"
)

// version is the sidecar's release version, reported to clients (set at
// release time, see buildinfo).
var version = buildinfo.Version()

// shutdownGrace is how long in-flight requests get to finish on SIGINT or
// SIGTERM before they are cancelled.
const shutdownGrace = 5 * time.Second

// cmdServe runs the sidecar: it serves the plugin and the CLI on
// 127.0.0.1, indexes the vault and keeps the index current until
// interrupted, then shuts down cleanly (requests finish, the index is
// closed, the lock released, sidecar.json removed).
func cmdServe(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("serve", &c)
	port := fs.Int("port", 0, "TCP port on 127.0.0.1 (0: any free port)")
	parent := fs.Int("parent-pid", 0, "stop when this process ends (the plugin passes its own); stdin, if a pipe, closing stops it too")
	idle := fs.Duration("idle", 0, "stop after this long with no client connected (0: never); quire mcp starts a sidecar shared by its clients with it")
	hosts := testHostsFlag(fs)
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	th, err := parseTestHosts(*hosts)
	if err != nil {
		return usageErr("--test-hosts: %v", err)
	}
	if *port < 0 || *port > 65535 {
		return usageErr("--port: %d is not a port", *port)
	}
	if *idle < 0 {
		return usageErr("--idle: %s is negative", *idle)
	}
	if *idle > 0 {
		state.SetHolder(fmt.Sprintf("quire serve --idle %s", *idle))
	}
	if th != nil {
		fmt.Fprintln(os.Stderr, "quire: test hosts for ingest (test only):", th.String())
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// The engine stops when the process that started it goes away, or a
	// client asks it to (shutdown), as on SIGTERM.
	ctx, stopServe := watchParent(ctx, *parent, log)
	defer stopServe()
	e, err := engine.Open(engine.Setup{Vault: c.vault, State: c.state, Queue: true, Fetch: th.client,
		Warn: func(w string) { log.Warn(w) }, Engine: engine.Options{Log: log}})
	if err != nil {
		return err
	}
	defer closeEngine(e)
	if err := e.EnableDense(ctx); err != nil {
		// Keyword search still works; hybrid queries say they fell back.
		log.Warn("search by meaning is off", "err", err)
	}
	secret, err := state.Secret(e.State())
	if err != nil {
		return err
	}
	opts := server.Options{Engine: e, Version: version, Secret: secret, Log: log, OnShutdown: stopServe}
	if *idle > 0 {
		w := newIdleStop(*idle, func() {
			log.Info("no client for a while: stopping", "idle", idle.String())
			stopServe()
		})
		defer w.stop()
		opts.OnClients = w.clients
	}
	srv, err := server.New(opts)
	if err != nil {
		return err
	}
	l, err := server.Listen(*port)
	if err != nil {
		return err
	}
	connPath := filepath.Join(e.State(), state.ConnFileName)
	cf := state.ConnFile{Port: l.Addr().(*net.TCPAddr).Port, Token: srv.Token(), PID: os.Getpid(), Protocol: server.Protocol, MinProtocol: server.MinProtocol, Version: version}
	if err := state.WriteConnFile(connPath, cf); err != nil {
		l.Close()
		return err
	}
	defer func() {
		if err := state.RemoveConnFile(connPath); err != nil {
			fmt.Fprintln(os.Stderr, "quire: remove connection file:", err)
		}
	}()

	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	watched := make(chan error, 1)
	go func() { watched <- e.Watch(wctx) }()
	ingested := make(chan error, 1)
	go func() { ingested <- e.RunIngest(wctx) }()
	fmt.Fprintf(os.Stderr, "quire: serving %s on 127.0.0.1:%d (Ctrl-C to stop)\n", c.vault, cf.Port)

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
		served <- serveErr
	}
	// Stop indexing at once (a pass stops between notes) while requests in
	// flight finish; the index closes only after both.
	stopWatch()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	shutErr := srv.Shutdown(sctx)
	<-served
	<-watched
	<-ingested // a note being written is finished first
	return errors.Join(serveErr, shutErr)
}

// idleStop calls its function once no client has been connected for its
// duration: a sidecar that `quire mcp` started for its clients goes away
// when the last one has.
type idleStop struct {
	mu sync.Mutex
	d  time.Duration
	t  *time.Timer
}

// newIdleStop starts counting at once: a sidecar no client ever reaches
// stops too.
func newIdleStop(d time.Duration, f func()) *idleStop {
	return &idleStop{d: d, t: time.AfterFunc(d, f)}
}

// clients is server.Options.OnClients.
func (w *idleStop) clients(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n > 0 {
		w.t.Stop()
	} else {
		w.t.Reset(w.d)
	}
}

func (w *idleStop) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Stop()
}
