package engine

import (
	"context"
	"os"
	"path/filepath"

	"github.com/quire-app/quire/sidecar/ingest/bench"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/llm"
)

// BenchRow is one model's run over one source (bench.Row).
type BenchRow = bench.Row

// benchSources is how many of the vault's originals a bench reads when no
// file is named.
const benchSources = 3

// Bench reads the same sources with each model named (on the configured
// provider and endpoint; none named: the configured model) and scores the
// runs (package bench): the files given, or the newest originals in the
// generated folder's raw/. Nothing is written to the vault. A private note
// is not read by a model off this machine.
func (e *Engine) Bench(ctx context.Context, models, files []string, each func(BenchRow)) ([]BenchRow, error) {
	cfg := e.Config()
	if cfg.Model.Provider == "" {
		return nil, errorf(ModelUnavailable, "no model is configured to bench: set model.provider and model.model")
	}
	if len(models) == 0 {
		models = []string{cfg.Model.Model}
	}
	var ms []bench.Model
	remote := false
	for _, name := range models {
		c := cfg.Model
		c.Model = name
		m, err := llm.New(c)
		if err != nil {
			return nil, errorf(ModelUnavailable, "model %s: %v", name, err)
		}
		remote = remote || !c.Local()
		ms = append(ms, m)
	}
	var sources []bench.Source
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		if remote && compile.PrivateSource(e.snap.Load().private, e.vault, abs) {
			return nil, errorf(Invalid, "%s is a private note, and a model is not on this machine", f)
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			return nil, errorf(NotFound, "%v", err)
		}
		sources = append(sources, bench.Source{Name: filepath.Base(abs), Data: data, File: filepath.Base(abs)})
	}
	if len(files) == 0 {
		var err error
		if sources, err = bench.Originals(e.vault, cfg.Folder, benchSources, cfg.Ingest.MaxBytes); err != nil {
			return nil, err
		}
		if len(sources) == 0 {
			return nil, errorf(NotFound, "%s/raw holds no sources yet: name a file to bench with", cfg.Folder)
		}
	}
	return bench.Run(ctx, ms, sources, cfg.Ingest.MaxCalls, each)
}
