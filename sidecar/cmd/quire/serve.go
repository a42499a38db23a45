package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/fetch"
	"github.com/quire-app/quire/sidecar/server"
)

// version is the sidecar's release version, reported to clients.
const version = "0.1.0"

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
	hosts := fs.String("test-hosts", "", "test only: NAME=127.0.0.1:PORT,… lets ingest reach local test sites by name (the guard still applies)")
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
	a, err := open(c, nil)
	if err != nil {
		return err
	}
	defer a.close()

	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := a.enableDense(); err != nil {
		// Keyword search still works; hybrid queries say they fell back.
		log.Warn("search by meaning is off", "err", err)
	}
	queue, err := ingest.OpenQueue(a.st.Join("queue"))
	if err != nil {
		return err
	}
	defer queue.Close()
	if th != nil {
		log.Warn("test hosts for ingest (test only)", "hosts", th.String())
	}
	srv, err := server.New(server.Options{Index: a.ix, Config: a.cfg, Version: version, Log: log, AskLog: a.st.Join(ask.LogName), StateDir: a.st.Path,
		Queue: queue, Fetch: th.client(fetch.Options{MaxBytes: a.cfg.Ingest.MaxBytes})})
	if err != nil {
		return err
	}
	l, err := server.Listen(*port)
	if err != nil {
		return err
	}
	connPath := a.st.Join(server.ConnFileName)
	cf := server.ConnFile{Port: l.Addr().(*net.TCPAddr).Port, Token: srv.Token(), PID: os.Getpid(), Protocol: proto.Version, Version: version}
	if err := server.WriteConnFile(connPath, cf); err != nil {
		l.Close()
		return err
	}
	defer func() {
		if err := server.RemoveConnFile(connPath); err != nil {
			fmt.Fprintln(os.Stderr, "quire: remove connection file:", err)
		}
	}()

	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	watched := make(chan error, 1)
	go func() { watched <- srv.Watch(wctx) }()
	ingested := make(chan error, 1)
	go func() { ingested <- srv.Ingest(wctx) }()
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
