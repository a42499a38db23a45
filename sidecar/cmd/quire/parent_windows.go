package main

import (
	"context"
	"os"
)

// parentGone closes its channel once process pid ends. On Windows any
// process can wait on another's handle, so no polling is needed; a pid
// that cannot be opened is taken as gone.
func parentGone(ctx context.Context, pid int) <-chan struct{} {
	ch := make(chan struct{})
	p, err := os.FindProcess(pid)
	if err != nil {
		close(ch)
		return ch
	}
	go func() {
		defer p.Release()
		_, _ = p.Wait()
		select {
		case <-ctx.Done():
		default:
			close(ch)
		}
	}()
	return ch
}
