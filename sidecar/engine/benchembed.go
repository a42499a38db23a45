//go:build quirebench

package engine

import (
	"context"
	"hash/fnv"
	"math"
	"strings"

	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/vector/use"
)

// A benchmark build (go build -tags quirebench) embeds documents with a
// fast word hash instead of the model, so that memory can be measured at
// 100,000 passages without hours of embedding. The model is still loaded
// and embeds queries, so its memory counts.
func init() {
	builtin = func() (index.Embedder, error) {
		m, err := use.Load()
		if err != nil {
			return nil, err
		}
		return hashEmbedder{m}, nil
	}
}

type hashEmbedder struct{ *use.Model }

func (h hashEmbedder) Name() string { return "bench-hash" }

func (h hashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 1 {
		return h.Model.Embed(ctx, texts) // a query: the real model
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, h.Dims())
		for _, w := range strings.Fields(strings.ToLower(t)) {
			f := fnv.New32a()
			f.Write([]byte(w))
			v[f.Sum32()%uint32(len(v))]++
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n) + 1e-9)
		}
		out[i] = v
	}
	return out, nil
}
