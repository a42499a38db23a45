package server

import (
	"strings"
	"testing"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/internal/embedtest"
	"github.com/quire-app/quire/sidecar/state"
)

// TestDense serves an index with an embedder: the pass embeds every
// passage, status reports full coverage, hybrid search answers as hybrid,
// and when the embedder goes down, search falls back to keywords and says
// so instead of failing.
func TestDense(t *testing.T) {
	emb := &embedtest.Bag{} // 64 dimensions
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

	emb.Down.Store(true)
	res, err = c.Search(t.Context(), proto.SearchQuery{Query: "rye levain", Channel: proto.ChannelHybrid})
	if err != nil {
		t.Fatal(err)
	}
	if res.Channel != proto.ChannelBM25 || !strings.Contains(res.Warning, "keyword") || len(res.Passages) == 0 {
		t.Errorf("embedder down: channel %q, warning %q, %d passages; want keyword results with a warning", res.Channel, res.Warning, len(res.Passages))
	}
}
