//go:build !windows

package main

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// parentGone closes its channel once process pid no longer runs. When pid
// is this process's parent, being reparented (to init or a subreaper)
// says so too, and a reused pid cannot fool it.
func parentGone(ctx context.Context, pid int) <-chan struct{} {
	ch := make(chan struct{})
	direct := os.Getppid() == pid
	go func() {
		t := time.NewTicker(parentPoll)
		defer t.Stop()
		for {
			if direct && os.Getppid() != pid {
				close(ch)
				return
			}
			if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
				close(ch)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return ch
}
