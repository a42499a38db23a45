package server

import (
	"testing"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/internal/embedtest"
	"github.com/quire-app/quire/sidecar/state"
)

// TestDense: with an embedder, status.get reports the vectors' coverage
// and the embedder, and search answers as hybrid (engine's TestDense has
// the fallback when the embedder goes down).
func TestDense(t *testing.T) {
	h := start(t, notes, withBag(t))
	c := h.dial()
	st, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Coverage.VectorsTotal == 0 || st.Coverage.VectorsDone != st.Coverage.VectorsTotal || st.Fingerprint.Embedder != "bag-test" {
		t.Errorf("status coverage %+v, embedder %q; want every passage embedded by bag-test", st.Coverage, st.Fingerprint.Embedder)
	}
	res, err := c.Search(t.Context(), proto.SearchQuery{Query: "rye levain"})
	if err != nil || res.Channel != proto.ChannelHybrid || len(res.Passages) == 0 {
		t.Errorf("hybrid: channel %q, %d passages, %v", res.Channel, len(res.Passages), err)
	}
}

// withBag is a start tweak that embeds the vault with a bag-of-words test
// embedder (64 dimensions).
func withBag(t *testing.T) func(*setup) {
	return func(o *setup) {
		st, err := state.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := o.Index.EnableDense(st, &embedtest.Bag{}); err != nil {
			t.Fatal(err)
		}
	}
}
