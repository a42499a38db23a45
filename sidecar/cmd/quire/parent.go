package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"
)

// parentPoll is how often the engine looks for its parent process.
const parentPoll = 250 * time.Millisecond

// watchParent returns a context that ends when the process that started
// the engine goes away: pid is gone (the plugin passes its own pid with
// --parent-pid), or stdin, when it is a pipe from that process, reaches
// its end (the OS closes it when the parent dies, even on a force-quit).
// A terminal's stdin or /dev/null is not a pipe and is left alone.
func watchParent(ctx context.Context, pid int, log *slog.Logger) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if pid > 0 {
		go func() {
			gone := parentGone(ctx, pid)
			select {
			case <-gone:
				log.Info("the process that started the engine is gone: stopping", "parent", pid)
				cancel()
			case <-ctx.Done():
			}
		}()
		if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			go func() {
				_, _ = io.Copy(io.Discard, os.Stdin)
				log.Info("stdin from the process that started the engine closed: stopping", "parent", pid)
				cancel()
			}()
		}
	}
	return ctx, cancel
}
