package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/index"
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
func withBag(t *testing.T) func(*setup) { return withEmbedder(t, &embedtest.Bag{}) }

// withEmbedder is a start tweak that embeds the vault with emb.
func withEmbedder(t *testing.T, emb index.Embedder) func(*setup) {
	return func(o *setup) {
		st, err := state.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := o.Index.EnableDense(st, emb); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStatusWhileEmbedding: while passages are embedded, status.result's
// coverage and the index.progress events carry the rate and the seconds
// left (the engine's test has the estimate itself). The embedder holds
// the second batch of the fifty new notes' passages.
func TestStatusWhileEmbedding(t *testing.T) {
	emb := embedtest.NewHeld()
	h := start(t, notes, withEmbedder(t, emb))
	c := h.dial()
	var mu sync.Mutex
	var events []proto.IndexProgress
	defer c.OnEvent(func(env proto.Envelope) {
		var p proto.IndexProgress
		if env.Type == proto.TypeIndexProgress && env.Decode(&p) == nil {
			mu.Lock()
			events = append(events, p)
			mu.Unlock()
		}
	})()
	emb.Batches.Store(1)
	batch := t.TempDir()
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(batch, fmt.Sprintf("n%02d.md", i)), fmt.Appendf(nil, "# Note %d\n\nThe keel resists leeway, note %d.\n", i, i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(batch, filepath.Join(h.vault, "Batch")); err != nil {
		t.Fatal(err)
	}
	var st proto.StatusResult
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var err error
		if st, err = c.Status(t.Context()); err != nil {
			t.Fatal(err)
		}
		if st.Coverage.PerSecond > 0 {
			break
		}
	}
	if cv := st.Coverage; cv.PerSecond <= 0 || cv.SecondsLeft <= 0 || cv.VectorsDone >= cv.VectorsTotal {
		t.Fatalf("status.result while embedding: coverage %+v, want a rate and seconds left", cv)
	}
	mu.Lock()
	var rated bool
	for _, p := range events {
		rated = rated || p.Phase == proto.PhaseEmbed && p.PerSecond > 0 && p.SecondsLeft > 0
	}
	mu.Unlock()
	if !rated {
		t.Errorf("index.progress while embedding: %+v, want one with a rate and seconds left", events)
	}
	close(emb.Release)
	h.waitIndexed()
	if st, err := c.Status(t.Context()); err != nil || st.Coverage.PerSecond != 0 || st.Coverage.SecondsLeft != 0 {
		t.Errorf("status.result after embedding: coverage %+v (%v), want no rate", st.Coverage, err)
	}
}
