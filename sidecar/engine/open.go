package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/fetch"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/state"
	"github.com/quire-app/quire/sidecar/vector/use"
)

// Setup says how Open opens a vault.
type Setup struct {
	// Vault is the vault folder.
	Vault string
	// State is the state folder; empty resolves it from the vault (see
	// state.Resolve).
	State string
	// Queue opens the ingest queue too (<state>/queue).
	Queue bool
	// Fetch is the guarded client ingest downloads with; nil is the
	// guard's defaults with the configured size limit.
	Fetch func(fetch.Options) *fetch.Client
	// Foreground says a person waits on this engine's passes (a CLI
	// command, not the sidecar): vectors are computed on every core at
	// normal priority instead of dense.workers (see index.Index.Foreground).
	Foreground bool
	// Warn receives warnings about the setup (config keys, embedder);
	// nil drops them.
	Warn func(string)
	// Engine is the rest of the options; Index, Config, StateDir, AskLog,
	// Queue and Fetch are filled in.
	Engine Options
}

// Open takes a vault's state folder (its exclusive lock), reads its
// config, opens the index and, with s.Queue, the ingest queue, and
// returns an engine that closes them all. It does not index: call
// Reindex, or Watch. A missing vault is an error unless its index
// exists, in which case the first pass reports it with what the index
// holds.
func Open(s Setup) (*Engine, error) {
	dir := state.Resolve(s.Vault, s.State)
	if st, err := os.Stat(s.Vault); err != nil || !st.IsDir() {
		if _, serr := os.Stat(dir); serr != nil {
			return nil, fmt.Errorf("vault %s: not a folder", s.Vault)
		}
	}
	warn := s.Warn
	if warn == nil {
		warn = func(string) {}
	}
	st, err := state.OpenFor(s.Vault, dir)
	if err != nil {
		return nil, err
	}
	cfg, warns, err := config.Load(dir)
	if err != nil {
		st.Close()
		return nil, err
	}
	for _, w := range warns {
		warn(w)
	}
	// A config.yaml edited by hand may name a folder of the user's own
	// notes: caught here, not only when ingest would write there.
	folderErr := checkFolder(s.Vault, cfg.Folder)
	ixCfg := cfg
	if folderErr != nil {
		warn(folderErr.Error())
		ixCfg.Folder = "" // its raw/ and Inbox/ are the user's: index them
	}
	ix, err := index.Open(s.Vault, st, ixCfg)
	if err != nil {
		st.Close()
		return nil, err
	}
	ix.Foreground = s.Foreground
	closers := []func() error{st.Close, ix.Close}
	closeAll := func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(errs...)
	}
	opts := s.Engine
	opts.Index, opts.Config, opts.StateDir, opts.AskLog = ix, cfg, st.Path, st.Join(ask.LogName)
	if s.Queue {
		q, err := ingest.OpenQueue(st.Join("queue"))
		if err != nil {
			closeAll()
			return nil, err
		}
		closers = append(closers, q.Close)
		opts.Queue = q
		fo := fetch.Options{MaxBytes: cfg.Ingest.MaxBytes}
		if s.Fetch != nil {
			opts.Fetch = s.Fetch(fo)
		} else {
			opts.Fetch = fetch.New(fo)
		}
	}
	e, err := New(opts)
	if err != nil {
		closeAll()
		return nil, err
	}
	e.close = closeAll
	e.st = st
	e.warn = warn
	e.folderErr = folderErr
	return e, nil
}

// State returns the state folder's path; empty for an engine made by New.
func (e *Engine) State() string {
	if e.st == nil {
		return ""
	}
	return e.st.Path
}

// HasVectors reports whether the state folder holds vectors, i.e. an
// embedder was enabled before.
func (e *Engine) HasVectors() bool {
	if e.st == nil {
		return false
	}
	_, err := os.Stat(e.st.Join("vectors"))
	return err == nil
}

// Vectors counts the passages with vectors as of the last pass, when an
// embedder is enabled: Status's Vectors, without the rest of a status,
// which reads every note.
func (e *Engine) Vectors() index.DenseStats { return e.snap.Load().dense }

// EnableDense loads the configured embedder and the vectors, unless the
// config turns dense search off. An embedder that cannot be loaded is a
// warning, not an error: keyword search goes on, and the next pass or
// command tries again.
func (e *Engine) EnableDense(ctx context.Context) error {
	cfg := e.Config()
	if cfg.Dense.Embedder == "none" || e.ix.Dense() || e.st == nil {
		return nil
	}
	m, err := LoadEmbedder(ctx, cfg)
	if err != nil {
		e.warn("search by meaning is off: " + err.Error())
		return nil
	}
	warning, err := e.ix.EnableDense(e.st, m)
	if warning != "" {
		e.warn(warning)
	}
	if err != nil {
		return err
	}
	return e.refresh(false)
}

// LoadEmbedder gives the embedder cfg names: the built-in one, or an
// embedding model on a server.
func LoadEmbedder(ctx context.Context, cfg config.Config) (index.Embedder, error) {
	if cfg.Dense.Embedder == "model" {
		return newModelEmbedder(ctx, cfg)
	}
	return builtin()
}

// builtin loads the built-in embedder; a benchmark build swaps it.
var builtin = func() (index.Embedder, error) { return use.Load() }

// modelEmbedder adapts an embedding model on a server (Ollama,
// OpenAI-compatible) to the index: its dimensions are read from one probe
// call, and its tokens are estimated with cl100k.
type modelEmbedder struct {
	*llm.Embedder
	dims, maxTokens int
}

func newModelEmbedder(ctx context.Context, cfg config.Config) (*modelEmbedder, error) {
	e, err := llm.NewEmbedder(cfg.Model)
	if err != nil {
		return nil, err
	}
	probe, err := e.EmbedDocuments(ctx, []string{"dimension probe"})
	if err != nil {
		return nil, fmt.Errorf("embedder %s: %w", e.Name(), err)
	}
	if len(probe) != 1 || len(probe[0]) == 0 {
		return nil, fmt.Errorf("embedder %s: empty vector", e.Name())
	}
	return &modelEmbedder{Embedder: e, dims: len(probe[0]), maxTokens: cfg.Dense.MaxTokens}, nil
}

func (m *modelEmbedder) Dims() int                   { return m.dims }
func (m *modelEmbedder) MaxTokens() int              { return m.maxTokens }
func (m *modelEmbedder) CountTokens(text string) int { return markdown.CountTokens(text) }
