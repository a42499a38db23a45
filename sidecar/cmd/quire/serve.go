package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/quire-app/quire/sidecar/vault"
)

// cmdServe indexes the vault and keeps the index current while the
// vault changes, until interrupted. The websocket server for the plugin
// attaches here.
func cmdServe(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("serve", &c)
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	a, err := open(c, os.Stderr)
	if err != nil {
		return err
	}
	defer a.close()
	st, err := a.ix.Run(ctx)
	warnSkips(st)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "quire: watching %s for changes (Ctrl-C to stop)\n", c.vault)
	a.ix.Progress = nil
	return vault.Watch(ctx, c.vault, a.ix.Rules(), 200*time.Millisecond, func(paths []string) {
		st, err := a.ix.Run(ctx)
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintln(os.Stderr, "quire: index:", err)
			}
			return
		}
		if st.Changed+st.Removed > 0 {
			fmt.Fprintf(os.Stderr, "quire: %d changed, %d removed (%d notes)\n", st.Changed, st.Removed, st.Notes)
		}
		warnSkips(st)
	})
}
