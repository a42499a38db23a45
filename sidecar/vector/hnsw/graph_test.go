package hnsw

import (
	"bytes"
	"errors"
	"math"
	"sync"
	"testing"
)

func build(t testing.TB, vs [][]float32, cfg Config) *Graph {
	t.Helper()
	g := New(len(vs[0]), cfg)
	for i, v := range vs {
		id, err := g.Add(v)
		if err != nil {
			t.Fatal(err)
		}
		if id != uint32(i) {
			t.Fatalf("Add #%d: got id %d", i, id)
		}
	}
	return g
}

// meanRecall searches every query and compares with the exact scan.
func meanRecall(t testing.TB, g *Graph, qs [][]float32, k, ef int, accept func(uint32) bool) float64 {
	t.Helper()
	sum := 0.0
	for _, q := range qs {
		got, err := g.Search(q, k, ef, accept)
		if err != nil {
			t.Fatal(err)
		}
		want, err := g.Exact(q, k, accept)
		if err != nil {
			t.Fatal(err)
		}
		sum += recall(got, want)
	}
	return sum / float64(len(qs))
}

func TestRecallAgainstExact(t *testing.T) {
	if raceOn {
		t.Skip("numerical test; slow under -race")
	}
	tests := []struct {
		name string
		data [][]float32
		min  float64
	}{
		{"clustered", clustered(2200, 32, 30, 0.7, 1), 0.98},
		// Uniform data is where stopping at k candidates shows: it
		// scores about 0.7 here instead of 1.
		{"uniform", uniform(2200, 32, 2), 0.98},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Held-out queries: an indexed point finds itself too easily.
			g := build(t, tt.data[:2000], Config{Seed: 1})
			qs := tt.data[2000:]
			if got := meanRecall(t, g, qs, 10, 0, nil); got < tt.min {
				t.Errorf("recall@10: got %.3f, want >= %.2f", got, tt.min)
			}
		})
	}
}

func TestSearchOrderAndScores(t *testing.T) {
	vs := clustered(500, 16, 5, 0.3, 3)
	g := build(t, vs, Config{Seed: 1})
	got, err := g.Search(vs[7], 5, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0].ID != 7 {
		t.Fatalf("got %v, want 5 hits starting with id 7", got)
	}
	if math.Abs(float64(got[0].Score)-1) > 1e-5 {
		t.Errorf("self score: got %v, want 1", got[0].Score)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Errorf("hits not sorted: %v", got)
		}
	}
}

func TestEmptyAndDims(t *testing.T) {
	g := New(4, Config{})
	got, err := g.Search([]float32{1, 0, 0, 0}, 3, 0, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("empty graph: got %v, %v", got, err)
	}
	if _, err := g.Add([]float32{1, 2}); !errors.Is(err, ErrDims) {
		t.Errorf("Add short vector: got %v, want ErrDims", err)
	}
	if _, err := g.Search([]float32{1}, 3, 0, nil); !errors.Is(err, ErrDims) {
		t.Errorf("Search short query: got %v, want ErrDims", err)
	}
}

func TestAcceptFilter(t *testing.T) {
	if raceOn {
		t.Skip("numerical test; slow under -race")
	}
	vs := clustered(2000, 32, 20, 0.5, 4)
	g := build(t, vs, Config{Seed: 1})
	even := func(id uint32) bool { return id%2 == 0 }
	rare := func(id uint32) bool { return id%97 == 0 }
	for _, acc := range []func(uint32) bool{even, rare} {
		for _, q := range vs[:20] {
			got, _ := g.Search(q, 10, 0, acc)
			for _, h := range got {
				if !acc(h.ID) {
					t.Fatalf("hit %d fails the filter", h.ID)
				}
			}
		}
	}
	if got := meanRecall(t, g, vs[:100], 10, 0, even); got < 0.95 {
		t.Errorf("recall with half filtered: got %.3f", got)
	}
	if got := meanRecall(t, g, vs[:100], 10, 0, rare); got < 0.95 {
		t.Errorf("recall with 1%% passing: got %.3f", got)
	}
}

func TestDeleteAndVacuum(t *testing.T) {
	if raceOn {
		t.Skip("numerical test; slow under -race")
	}
	vs := clustered(3000, 32, 30, 0.5, 5)
	g := build(t, vs, Config{Seed: 1, VacuumRatio: -1})
	deleted := map[uint32]bool{}
	for i := 0; i < len(vs); i += 3 { // a third, including the entry point
		if !g.Delete(uint32(i)) {
			t.Fatalf("Delete(%d): got false", i)
		}
		deleted[uint32(i)] = true
	}
	g.Delete(g.entry)
	deleted[g.entry] = true
	if g.Delete(0) {
		t.Error("second Delete(0): got true, want false")
	}
	noDeleted := func(stage string) {
		for _, q := range vs[:300] {
			got, _ := g.Search(q, 10, 0, nil)
			if len(got) != 10 {
				t.Fatalf("%s: got %d hits, want 10", stage, len(got))
			}
			for _, h := range got {
				if deleted[h.ID] {
					t.Fatalf("%s: deleted id %d returned", stage, h.ID)
				}
			}
		}
	}
	noDeleted("tombstoned")
	if got, want := g.Len(), len(vs)-len(deleted); got != want {
		t.Errorf("Len: got %d, want %d", got, want)
	}
	if got := meanRecall(t, g, vs[:300], 10, 0, nil); got < 0.95 {
		t.Errorf("recall with tombstones: got %.3f", got)
	}

	g.Vacuum()
	if err := g.validate(); err != nil {
		t.Fatal(err)
	}
	if got := g.stranded(); len(got) != 0 {
		t.Errorf("after Vacuum: %d nodes unreachable, e.g. %v", len(got), got[:min(5, len(got))])
	}
	if g.Tombstones() != 0 || len(g.free) != len(deleted) {
		t.Errorf("after Vacuum: %d tombstones, %d free, want 0, %d", g.Tombstones(), len(g.free), len(deleted))
	}
	noDeleted("vacuumed")
	if got := meanRecall(t, g, vs[:300], 10, 0, nil); got < 0.95 {
		t.Errorf("recall after Vacuum: got %.3f", got)
	}

	// Freed ids are reused, and new vectors are found.
	for _, v := range vs[:200] {
		id, err := g.Add(v)
		if err != nil {
			t.Fatal(err)
		}
		if !deleted[id] {
			t.Fatalf("Add after Vacuum: got fresh id %d, want a freed one", id)
		}
		delete(deleted, id)
	}
	if got := meanRecall(t, g, vs[:300], 10, 0, nil); got < 0.95 {
		t.Errorf("recall after reuse: got %.3f", got)
	}
}

func TestAutoVacuumAndDeleteAll(t *testing.T) {
	vs := uniform(1000, 16, 6)
	g := build(t, vs, Config{Seed: 1, VacuumRatio: 0.2})
	for i := range 300 {
		g.Delete(uint32(i))
	}
	if got := g.Tombstones(); got >= 200 {
		t.Errorf("tombstones after deleting 30%%: got %d, want a vacuum to have run", got)
	}
	for i := range vs {
		g.Delete(uint32(i))
	}
	g.Vacuum()
	if g.Len() != 0 {
		t.Fatalf("Len after deleting all: got %d", g.Len())
	}
	if got, _ := g.Search(vs[0], 5, 0, nil); len(got) != 0 {
		t.Errorf("search of emptied graph: got %v", got)
	}
	id, _ := g.Add(vs[0])
	if got, _ := g.Search(vs[0], 5, 0, nil); len(got) != 1 || got[0].ID != id {
		t.Errorf("search after refill: got %v, want [%d]", got, id)
	}
}

func TestDeterministic(t *testing.T) {
	vs := clustered(800, 16, 8, 0.5, 7)
	var outs [2]bytes.Buffer
	for i := range outs {
		g := build(t, vs, Config{Seed: 42, VacuumRatio: -1})
		for j := 0; j < 800; j += 5 {
			g.Delete(uint32(j))
		}
		g.Vacuum()
		g.Add(vs[1])
		if _, err := g.WriteTo(&outs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
		t.Error("two builds with the same seed differ")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	vs := clustered(1500, 24, 10, 0.5, 8)
	g := build(t, vs[:1000], Config{Seed: 9, M: 8, VacuumRatio: -1})
	for i := 0; i < 1000; i += 7 {
		g.Delete(uint32(i))
	}
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	saved := bytes.Clone(buf.Bytes())
	h, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if h.Config() != g.Config() || h.Len() != g.Len() || h.Tombstones() != g.Tombstones() {
		t.Fatalf("loaded graph: config %+v len %d tomb %d, want %+v %d %d",
			h.Config(), h.Len(), h.Tombstones(), g.Config(), g.Len(), g.Tombstones())
	}
	for _, q := range vs[1000:1100] {
		a, _ := g.Search(q, 10, 0, nil)
		b, _ := h.Search(q, 10, 0, nil)
		if len(a) != len(b) {
			t.Fatalf("results differ: %v vs %v", a, b)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("results differ: %v vs %v", a, b)
			}
		}
	}
	// Same later inserts (rng state included) give the same bytes.
	for _, v := range vs[1000:] {
		g.Add(v)
		h.Add(v)
	}
	var ga, ha bytes.Buffer
	g.WriteTo(&ga)
	h.WriteTo(&ha)
	if !bytes.Equal(ga.Bytes(), ha.Bytes()) {
		t.Error("loaded graph diverges from the original after more inserts")
	}

	t.Run("truncated", func(t *testing.T) {
		for _, n := range []int{0, 5, 12, 40, 130, len(saved) / 2, len(saved) - 4, len(saved) - 1} {
			if _, err := Read(bytes.NewReader(saved[:n])); !errors.Is(err, ErrCorrupt) {
				t.Errorf("first %d bytes: got %v, want ErrCorrupt", n, err)
			}
		}
	})
	t.Run("flipped", func(t *testing.T) {
		step := len(saved)/300 + 1
		for i := 0; i < len(saved); i += step {
			bad := bytes.Clone(saved)
			bad[i] ^= 0x10
			if _, err := Read(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("byte %d flipped: got %v, want ErrCorrupt", i, err)
			}
		}
	})
}

func TestConcurrentReadersAndWriter(t *testing.T) {
	vs := clustered(1200, 16, 10, 0.5, 10)
	g := build(t, vs[:600], Config{Seed: 1, VacuumRatio: 0.05})
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				if _, err := g.Search(vs[(i*7+r)%len(vs)], 5, 0, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, v := range vs[600:] {
			g.Add(v)
			g.Delete(uint32(i))
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 5 {
			g.WriteTo(&bytes.Buffer{})
		}
	}()
	wg.Wait()
	if err := g.validate(); err != nil {
		t.Fatal(err)
	}
}

// TestVacuumKeepsEveryNodeReachable deletes most of the graph, which cuts
// some survivors off from the entry point, and checks that every survivor
// is still found by searching for its own vector.
func TestVacuumKeepsEveryNodeReachable(t *testing.T) {
	vs := uniform(2000, 16, 13)
	g := build(t, vs, Config{Seed: 1, M: 4, VacuumRatio: -1})
	for i := range vs {
		if i%10 != 0 {
			g.Delete(uint32(i))
		}
	}
	g.Vacuum()
	if got := g.stranded(); len(got) != 0 {
		t.Errorf("%d nodes unreachable after Vacuum", len(got))
	}
	for i := 0; i < len(vs); i += 10 {
		got, _ := g.Search(vs[i], 1, 0, nil)
		if len(got) != 1 || got[0].ID != uint32(i) {
			t.Fatalf("search for node %d's vector: got %v", i, got)
		}
	}
}
