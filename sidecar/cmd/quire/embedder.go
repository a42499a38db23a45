package main

import (
	"context"
	"fmt"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/vector/use"
)

// loadEmbedder gives the configured embedder; a benchmark build swaps it.
var loadEmbedder = func(ctx context.Context, cfg config.Config) (index.Embedder, error) {
	if cfg.Dense.Embedder == "model" {
		return newModelEmbedder(ctx, cfg)
	}
	return use.Load()
}

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
