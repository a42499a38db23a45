package main

import (
	"context"
	"fmt"
	"os"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/rerank"
	"github.com/quire-app/quire/sidecar/state"
)

// cmdDoctor checks the configured models and reranker with a tiny call
// each and says what to fix. It reads the config only: it needs no index
// and works while a sidecar runs.
func cmdDoctor(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("doctor", &c)
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	cfg, warns, err := config.Load(state.Resolve(c.vault, c.state))
	if err != nil {
		return err
	}
	for _, w := range warns {
		fmt.Fprintln(os.Stderr, "quire: warning:", shown(w))
	}
	checks := append(llm.Doctor(ctx, cfg.Model), rerank.Doctor(ctx, cfg.Rerank, nil))
	if c.json {
		return printJSON(checks)
	}
	failed := 0
	for _, ch := range checks {
		mark := "ok  "
		if !ch.OK {
			mark, failed = "FAIL", failed+1
		}
		// Names, details and fixes carry config values and what the
		// model server answered: controls are shown escaped, never sent
		// to the terminal.
		fmt.Printf("%s %s: %s\n", mark, shown(ch.Name), shown(ch.Detail))
		if ch.Fix != "" {
			fmt.Printf("     fix: %s\n", shown(ch.Fix))
		}
	}
	if cfg.Model.Provider != "" && !cfg.Model.Local() {
		fmt.Printf("note: %s is not on this machine: passages of your notes are sent there (folders under `private:` never are)\n", shown(cfg.Model.Endpoint))
	}
	if cfg.Rerank.Provider != "" && !cfg.Rerank.Local() {
		fmt.Printf("note: the reranker at %s is not on this machine: passages of your notes are sent there (folders under `private:` never are)\n", shown(cfg.Rerank.BaseURL()))
	}
	if failed > 0 {
		return fmt.Errorf("doctor: %d check(s) failed", failed)
	}
	return nil
}
