//go:build quirebench

package engine

import (
	"context"

	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/internal/embedtest"
	"github.com/quire-app/quire/sidecar/vector/use"
)

// A benchmark build (go build -tags quirebench) embeds documents with a
// fast word hash (the tests' embedder) instead of the model, so that
// memory can be measured at 100,000 passages without hours of embedding.
// The model is still loaded and embeds queries, so its memory counts.
func init() {
	builtin = func() (index.Embedder, error) {
		m, err := use.Load()
		if err != nil {
			return nil, err
		}
		return hashEmbedder{Model: m, bag: &embedtest.Bag{Size: m.Dims()}}, nil
	}
}

type hashEmbedder struct {
	*use.Model
	bag *embedtest.Bag
}

func (h hashEmbedder) Name() string { return "bench-hash" }

func (h hashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 1 {
		return h.Model.Embed(ctx, texts) // a query: the real model
	}
	return h.bag.Embed(ctx, texts)
}
