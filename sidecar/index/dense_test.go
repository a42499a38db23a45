package index

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/internal/embedtest"
	"github.com/quire-app/quire/sidecar/vector"
)

// fakeEmbedder is the test embedder at the size these tests chunk for:
// 32 dimensions, 16-word windows.
func fakeEmbedder(name string) *embedtest.Bag {
	return &embedtest.Bag{Model: name, Size: 32, Window: 16}
}

func (f *fixture) enableDense(e Embedder) {
	f.t.Helper()
	if _, err := f.ix.EnableDense(f.st, e); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) embed() DenseStats {
	f.t.Helper()
	st, err := f.ix.Embed(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

var longNote = "# Sailing\n\n" + strings.Repeat("The keel resists leeway while the sails drive the boat forward on every point of sail. ", 20) + "\n"

func TestEmbedFillsResumesAndRebuilds(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": basic["cheese/brie.md"], "b.md": longNote})
	f.run()
	e := fakeEmbedder("fake@1")
	f.enableDense(e)
	st := f.embed()
	if st.Coverage() != 1 || st.Passages == 0 || st.TextSeen != 1 {
		t.Fatalf("after Embed: %+v, want every passage and every word embedded", st)
	}
	if n := e.Texts.Load(); n <= int64(st.Passages) {
		t.Errorf("%d windows read for %d passages: the long passage should need several", n, st.Passages)
	}
	if st.Vectors != st.Passages {
		t.Errorf("%d vectors for %d passages, want one each", st.Vectors, st.Passages)
	}
	hits, err := f.ix.SearchDense(context.Background(), "keel leeway", 3)
	if err != nil || len(hits) == 0 || !strings.HasPrefix(hits[0].ID, "b.md#") {
		t.Fatalf("dense search: %v %v", hits, err)
	}

	// A restart with every vector present embeds nothing.
	f.close()
	f.open()
	e2 := fakeEmbedder("fake@1")
	f.enableDense(e2)
	f.run()
	if st := f.embed(); e2.Calls.Load() != 0 || st.Coverage() != 1 {
		t.Errorf("restart: %d embed calls, coverage %v; want none and full", e2.Calls.Load(), st.Coverage())
	}

	// An edit re-embeds that note only.
	f.write("a.md", "# Brie\n\nBrie ripens from the rind inward.\n")
	f.run()
	f.embed()
	if n := e2.Texts.Load(); n != 1 {
		t.Errorf("edit of a one-passage note embedded %d windows, want 1", n)
	}

	// Another embedder discards the vectors and embeds everything again.
	f.close()
	f.open()
	e3 := fakeEmbedder("fake@2")
	f.enableDense(e3)
	if st := f.ix.DenseStats(); st.Embedded != 0 {
		t.Errorf("new embedder kept %d old vectors", st.Embedded)
	}
	f.embed()
	if st := f.ix.DenseStats(); st.Coverage() != 1 {
		t.Errorf("after rebuild: %+v", st)
	}
}

// While vectors are rebuilt in the background, keyword search answers.
func TestKeywordSearchServesDuringEmbedding(t *testing.T) {
	f := newFixture(t, basic)
	f.run()
	e := fakeEmbedder("slow")
	e.Gate = make(chan struct{})
	f.enableDense(e)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := f.ix.Embed(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	if got := paths(f.search("rennet")); got != "cheese/rennet.md" {
		t.Errorf("keyword search during embedding: %q", got)
	}
	if st := f.ix.DenseStats(); st.Embedded != 0 {
		t.Errorf("embedded %d before the gate opened", st.Embedded)
	}
	close(e.Gate)
	wg.Wait()
	if st := f.ix.DenseStats(); st.Coverage() != 1 {
		t.Errorf("after embedding: %+v", st)
	}
}

func TestMeanPool(t *testing.T) {
	keys, vecs := meanPool([]string{"a#0@0", "a#0@1", "b#1@0"}, [][]float32{{1, 0}, {0, 1}, {3, 4}})
	if len(keys) != 2 || keys[0] != "a#0@0" || keys[1] != "b#1@0" {
		t.Fatalf("keys = %v", keys)
	}
	if d := vecs[0][0] - float32(math.Sqrt(0.5)); d > 1e-6 || d < -1e-6 || vecs[1][0] != 0.6 {
		t.Errorf("vectors = %v, want normalised means", vecs)
	}
}

// Vectors left for a passage that the keyword index no longer has (a crash
// between the two) are removed, never served.
func TestStaleVectorsAreDropped(t *testing.T) {
	f := newFixture(t, basic)
	f.run()
	e := fakeEmbedder("fake")
	f.enableDense(e)
	f.embed()
	f.ix.dense.store.Put("gone.md#0@0", make([]float32, 32))
	f.embed()
	if f.ix.dense.store.Has("gone.md#0@0") {
		t.Error("vector of a vanished passage survived Embed")
	}
	// Chunking changes: passages are rebuilt and old vectors discarded.
	f.close()
	cfg := config.Default()
	cfg.Chunk.MaxTokens = 128
	f.openWith(cfg)
	f.enableDense(e)
	if n := f.ix.DenseStats().Vectors; n != 0 {
		t.Errorf("chunking changed but %d vectors were kept", n)
	}
}

func TestWindowsCoverEveryWord(t *testing.T) {
	count := func(s string) int { return len(strings.Fields(s)) }
	text := strings.Repeat("w ", 100)
	ws, seen, total := windows("Note › Part", text, count, 20)
	if seen != total || total != 100 {
		t.Errorf("seen %d of %d words", seen, total)
	}
	for _, w := range ws {
		if count(w) > 20 {
			t.Errorf("window of %d tokens over the budget of 20: %q", count(w), w)
		}
		if !strings.HasPrefix(w, "Note › Part: ") {
			t.Errorf("window lost its breadcrumb: %q", w)
		}
	}
	// 17 words of room per window (the breadcrumb takes 3): 6 windows,
	// none overlapping the one before.
	if len(ws) != 6 || count(ws[1]) != 20 || count(ws[5]) != 3+100-5*17 {
		t.Errorf("%d windows %q, want 6 cut one after the other", len(ws), ws)
	}
}

// remoteFake is a test embedder that says it sends texts off the machine
// and remembers every text it was sent.
type remoteFake struct {
	*embedtest.Bag
	remote bool
	mu     sync.Mutex
	seen   []string
}

func (r *remoteFake) Remote() bool { return r.remote }

func (r *remoteFake) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.seen = append(r.seen, texts...)
	r.mu.Unlock()
	return r.Bag.Embed(ctx, texts)
}

func TestRemoteEmbedderGetsNoPrivatePassage(t *testing.T) {
	const marker = "zq-private-7731"
	for _, remote := range []bool{true, false} {
		f := newFixture(t, map[string]string{
			"Journal/day.md": "# Day\n\nThe keel " + marker + " resists leeway.\n",
			"Boats.md":       "# Boats\n\nThe keel resists leeway.\n",
		})
		f.close()
		cfg := config.Default()
		cfg.Private = []string{"journal/"}
		f.openWith(cfg)
		f.run()
		e := &remoteFake{Bag: fakeEmbedder("remote"), remote: remote}
		f.enableDense(e)
		f.embed()
		sent := strings.Join(e.seen, "\n")
		if got := strings.Contains(sent, marker); got == remote {
			t.Errorf("remote %v: private passage sent to the embedder: %v, want %v", remote, got, !remote)
		}
		if !strings.Contains(sent, "Boats") {
			t.Errorf("remote %v: the public note was not embedded: %q", remote, sent)
		}
		// Status says why coverage is below 1: the withheld passages.
		st := f.ix.DenseStats()
		if want := map[bool]int{true: 1, false: 0}[remote]; st.Withheld != want || st.Embedded+st.Withheld != st.Passages {
			t.Errorf("remote %v: %+v, want %d withheld and every other passage embedded", remote, st, want)
		}
	}
}

// crashingEmbedder embeds `before` calls, then blocks until released,
// standing in for a process killed mid-run.
type crashingEmbedder struct {
	*embedtest.Bag
	before  int
	stuck   chan struct{}
	release chan struct{}
	n       int
}

func (c *crashingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.n++
	if c.n > c.before {
		close(c.stuck)
		select {
		case <-c.release:
		case <-ctx.Done():
		}
		return nil, context.Canceled
	}
	return c.Bag.Embed(ctx, texts)
}

// TestEmbedCheckpointsByCount: vectors are on disk after each checkpoint's
// count, not only after a minute, so a kill loses at most the last batch.
func TestEmbedCheckpointsByCount(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 100; i++ {
		files["n"+strconv.Itoa(i)+".md"] = "# Note " + strconv.Itoa(i) + "\n\nThe keel resists leeway number " + strconv.Itoa(i) + ".\n"
	}
	f := newFixture(t, files)
	f.run()
	f.ix.checkpoint = 40
	e := &crashingEmbedder{Bag: fakeEmbedder("crash"), before: 2, stuck: make(chan struct{}), release: make(chan struct{})}
	f.enableDense(e)
	done := make(chan error, 1)
	go func() { _, err := f.ix.Embed(context.Background()); done <- err }()
	<-e.stuck
	// What a restarted process would find on disk now.
	onDisk, err := vector.Open(f.st.Join("vectors"), f.ix.denseFingerprint(e))
	close(e.release)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if got := onDisk.Len(); got < 64 {
		t.Errorf("vectors on disk after two batches of 32: %d, want 64", got)
	}
}

// backgroundFake is a test embedder that can embed in the background and
// records the worker counts it was asked for.
type backgroundFake struct {
	*embedtest.Bag
	mu      sync.Mutex
	workers []int
}

func (b *backgroundFake) EmbedBackground(ctx context.Context, texts []string, workers int) ([][]float32, error) {
	b.mu.Lock()
	b.workers = append(b.workers, workers)
	b.mu.Unlock()
	return b.Bag.Embed(ctx, texts)
}

// TestEmbedPassagesInBackground checks that passages go through
// EmbedBackground with dense.workers when the embedder has it.
func TestEmbedPassagesInBackground(t *testing.T) {
	f := newFixture(t, map[string]string{"Boats.md": "# Boats\n\nThe keel resists leeway.\n"})
	f.close()
	cfg := config.Default()
	cfg.Dense.Workers = 3
	f.openWith(cfg)
	f.run()
	e := &backgroundFake{Bag: fakeEmbedder("bg")}
	f.enableDense(e)
	f.embed()
	if len(e.workers) == 0 || e.workers[0] != 3 {
		t.Errorf("EmbedBackground workers = %v, want [3 …]", e.workers)
	}
	if e.Calls.Load() != int64(len(e.workers)) {
		t.Errorf("%d Embed calls, %d of them in the background: passages went through Embed", e.Calls.Load(), len(e.workers))
	}
}

// TestRebuildKeepsUnchangedVectors rebuilds every note (as a full reindex
// does) with the same embedder and chunking: nothing is embedded again.
// Then one passage of one note changes: only that passage is embedded
// again, and every passage has its vector.
func TestRebuildKeepsUnchangedVectors(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md": "# A\n\nalpha apples grow on trees.\n\n## More\n\nalpha again, with pears.\n",
		"b.md": "# B\n\nbeta bananas are yellow.\n",
	})
	emb := fakeEmbedder("fake")
	f.enableDense(emb)
	if _, err := f.ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := f.embed()
	if first.Embedded != first.Passages || first.Passages == 0 {
		t.Fatalf("first embed: %+v", first)
	}
	before := emb.Texts.Load()

	if err := f.ix.Invalidate(); err != nil {
		t.Fatal(err)
	}
	if st, err := f.ix.Run(context.Background()); err != nil || st.Changed != 2 {
		t.Fatalf("rebuild: %+v, %v; want both notes re-read", st, err)
	}
	if got := f.ix.DenseStats(); got.Embedded != first.Passages {
		t.Errorf("after the rebuild %d of %d passages keep their vectors, want all", got.Embedded, first.Passages)
	}
	if st := f.embed(); st.Embedded != st.Passages {
		t.Errorf("embed after rebuild: %+v", st)
	}
	if n := emb.Texts.Load() - before; n != 0 {
		t.Errorf("rebuild re-embedded %d texts, want 0", n)
	}

	f.write("a.md", "# A\n\nalpha apples grow on trees.\n\n## More\n\nalpha again, with plums now.\n")
	before = emb.Texts.Load()
	if _, err := f.ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := f.embed(); st.Embedded != st.Passages {
		t.Errorf("embed after the edit: %+v", st)
	}
	if n := emb.Texts.Load() - before; n != 1 {
		t.Errorf("the edit re-embedded %d texts, want 1 (the changed passage)", n)
	}
}

// TestEmbedForegroundUsesEveryCore: a run someone waits on (quire index,
// quire eval) embeds through Embed, on every core at normal priority,
// whatever dense.workers says; only the sidecar's background passes keep
// to dense.workers.
func TestEmbedForegroundUsesEveryCore(t *testing.T) {
	f := newFixture(t, map[string]string{"Boats.md": "# Boats\n\nThe keel resists leeway.\n"})
	f.close()
	cfg := config.Default()
	cfg.Dense.Workers = 1
	f.openWith(cfg)
	f.ix.Foreground = true
	f.run()
	e := &backgroundFake{Bag: fakeEmbedder("bg")}
	f.enableDense(e)
	f.embed()
	if len(e.workers) != 0 || e.Calls.Load() == 0 {
		t.Errorf("foreground run: %d Embed calls, %d of them in the background (workers %v), want every one through Embed",
			e.Calls.Load(), len(e.workers), e.workers)
	}
}

// TestDenseStatsDuringEmbed: status reads the share of words embedded
// while a background Embed sets it (run with -race: the sidecar's status
// and its background embedding did exactly this).
func TestDenseStatsDuringEmbed(t *testing.T) {
	f := newFixture(t, map[string]string{"sail.md": longNote, "b.md": "# B\n\nbeta bananas.\n"})
	f.run()
	f.enableDense(fakeEmbedder("bag"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := f.ix.Embed(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	for {
		st := f.ix.DenseStats()
		select {
		case <-done:
			if st = f.ix.DenseStats(); st.TextSeen <= 0 || st.TextSeen > 1 {
				t.Errorf("text seen %v after Embed", st.TextSeen)
			}
			return
		default:
		}
	}
}

// TestAtInPathKeepsVectors: a note path may hold "@" (bob@home.md,
// @Inbox/); a vector key is "<path>#<n>@<window>", so the passage is what
// comes before the last "@", and a second pass embeds nothing again.
func TestAtInPathKeepsVectors(t *testing.T) {
	f := newFixture(t, map[string]string{
		"bob@home.md":    "# Bob\n\nbob keeps bees at home.\n",
		"@Inbox/note.md": "# Inbox\n\nan inbox note about kites.\n",
	})
	f.run()
	e := fakeEmbedder("fake")
	f.enableDense(e)
	if st := f.embed(); st.Coverage() != 1 {
		t.Fatalf("first embed: %+v", st)
	}
	before := e.Texts.Load()
	f.run()
	st := f.embed()
	if n := e.Texts.Load() - before; n != 0 || st.Coverage() != 1 {
		t.Errorf("second pass embedded %d texts (coverage %v), want 0 and full", n, st.Coverage())
	}
	if got := KeyPassage("@Inbox/bob@home.md#3@1"); got != "@Inbox/bob@home.md#3" {
		t.Errorf("KeyPassage = %q", got)
	}
}
