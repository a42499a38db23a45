package main

import (
	"context"
	"fmt"

	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/state"
)

// remote is a running sidecar that serves the vault. While one runs, it
// holds the index's lock, so commands that read the index ask it through
// the protocol instead.
type remote struct {
	c  *client.Client
	r  *client.Remote
	cf state.ConnFile
}

// attach returns the sidecar serving c's vault, or nil when none does
// (no connection file, its process gone, or it does not answer), in which
// case the command opens the index itself.
func attach(ctx context.Context, c common) *remote {
	cl, cf, err := client.Attach(ctx, state.Resolve(c.vault, c.state), "quire-cli "+version)
	if err != nil {
		return nil
	}
	if !client.SameDir(cl.Welcome().Vault, c.vault) {
		cl.Close()
		return nil
	}
	return &remote{c: cl, r: client.NewRemote(cl, cf.PID), cf: cf}
}

func (r *remote) close() { r.c.Close() }

// status is cmdStatus through the sidecar.
func (r *remote) status(ctx context.Context, c common) error {
	st, err := r.r.Status(ctx)
	if err != nil {
		return fmt.Errorf("status from the sidecar (pid %d): %w", r.cf.PID, err)
	}
	out := toStatusOut(c, state.Resolve(c.vault, c.state), st)
	out.Vault = c.vault
	if cfg, _, err := config.Load(out.State); err == nil {
		out.Model = modelStatus(cfg)
	}
	if c.json {
		return printJSON(out)
	}
	indexing := ""
	if st.Indexing {
		indexing = ", indexing now"
	}
	out.print(fmt.Sprintf("pid %d on 127.0.0.1:%d (version %s%s)", r.cf.PID, r.cf.Port, r.c.Welcome().Version, indexing))
	return nil
}
