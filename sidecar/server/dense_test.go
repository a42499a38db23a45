package server

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/state"
)

// bagEmbedder is a fake dense model: a hashed bag of words, normalised.
// It can be made to fail, like an Ollama server that went away.
type bagEmbedder struct{ down atomic.Bool }

func (e *bagEmbedder) Name() string                { return "bag-test" }
func (e *bagEmbedder) Dims() int                   { return 64 }
func (e *bagEmbedder) MaxTokens() int              { return 512 }
func (e *bagEmbedder) CountTokens(text string) int { return len(strings.Fields(text)) }

func (e *bagEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.down.Load() {
		return nil, errors.New("connection refused")
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.Dims())
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(strings.Trim(w, ".,:;#")))
			v[h.Sum32()%uint32(e.Dims())]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n) + 1e-9)
		}
		out[i] = v
	}
	return out, nil
}

// TestDense serves an index with an embedder: the pass embeds every
// passage, status reports full coverage, hybrid search answers as hybrid,
// and when the embedder goes down, search falls back to keywords and says
// so instead of failing.
func TestDense(t *testing.T) {
	emb := &bagEmbedder{}
	h := start(t, notes, func(o *setup) {
		st, err := state.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := o.Index.EnableDense(st, emb); err != nil {
			t.Fatal(err)
		}
	})
	h.waitEmbedded()
	c := h.dial()
	st, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Coverage.VectorsTotal == 0 || st.Coverage.VectorsDone != st.Coverage.VectorsTotal || st.Fingerprint.Embedder != "bag-test" {
		t.Errorf("status coverage %+v, embedder %q; want every passage embedded by bag-test", st.Coverage, st.Fingerprint.Embedder)
	}
	res, err := c.Search(t.Context(), proto.SearchQuery{Query: "rye levain"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Channel != proto.ChannelHybrid || res.Warning != "" || len(res.Passages) == 0 || res.Passages[0].Path != "Kitchen/Rye bread.md" {
		t.Errorf("hybrid: channel %q, warning %q, %d passages", res.Channel, res.Warning, len(res.Passages))
	}

	emb.down.Store(true)
	res, err = c.Search(t.Context(), proto.SearchQuery{Query: "rye levain", Channel: proto.ChannelHybrid})
	if err != nil {
		t.Fatal(err)
	}
	if res.Channel != proto.ChannelBM25 || !strings.Contains(res.Warning, "keyword") || len(res.Passages) == 0 {
		t.Errorf("embedder down: channel %q, warning %q, %d passages; want keyword results with a warning", res.Channel, res.Warning, len(res.Passages))
	}
}
