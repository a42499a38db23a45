package index

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/internal/embedtest"
)

func TestProgress(t *testing.T) {
	files := map[string]string{}
	for i := range 250 {
		files[fmt.Sprintf("n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nword%d text.\n", i, i)
	}
	f := newFixture(t, files)
	var mu sync.Mutex
	var got [][2]int
	f.ix.OnProgress = func(p Progress) {
		if p.Phase != PhaseIndex {
			t.Errorf("phase %q during Run", p.Phase)
		}
		mu.Lock()
		got = append(got, [2]int{p.Done, p.Total})
		mu.Unlock()
	}
	if _, err := f.ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The start, a report at least every twentieth of the notes (more
	// when the machine is slow: one every progressWait), the end.
	if len(got) < 2 || got[0] != [2]int{0, 250} || got[len(got)-1] != [2]int{250, 250} {
		t.Fatalf("got %v, want it to begin at 0/250 and end at 250/250", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i][1] != 250 || got[i][0] <= got[i-1][0] || got[i][0]-got[i-1][0] > 250/progressSteps {
			t.Errorf("report %d: %v after %v, want at most %d notes later", i, got[i], got[i-1], 250/progressSteps)
		}
	}
}

// TestEmbedProgressThinned: the vectors' progress is thinned where the
// notes' is, in the index (the websocket, MCP and the command line pass
// on what it reports): the start and end of the phase, and between them
// a report only a twentieth of the passages or progressWait after the
// last one. Embed reported every batch of 32, 32 reports for these 1,000
// passages, and the server and MCP each thinned them again.
func TestEmbedProgressThinned(t *testing.T) {
	const n = 1000
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("n%04d.md", i)] = fmt.Sprintf("# Note %d\n\nword%d text.\n", i, i)
	}
	f := newFixture(t, files)
	if _, err := f.ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.enableDense(fakeEmbedder("bag"))
	type report struct {
		done, total int
		at          time.Time
	}
	var got []report
	f.ix.OnProgress = func(p Progress) {
		if p.Phase == PhaseEmbed {
			got = append(got, report{p.Done, p.Total, time.Now()})
		}
	}
	f.embed()
	if len(got) == 0 || got[len(got)-1].done != n || got[len(got)-1].total != n {
		t.Fatalf("reports %v, want the last at %d/%d", got, n, n)
	}
	// A report due by time goes out a moment after its decision, so the
	// gap measured here may fall short of progressWait by that moment.
	const slack = 50 * time.Millisecond
	for i := 1; i < len(got)-1; i++ {
		if got[i].done-got[i-1].done < n/progressSteps && got[i].at.Sub(got[i-1].at) < progressWait-slack {
			t.Errorf("report %d at %d/%d, %s after %d/%d: neither a twentieth nor %s later", i, got[i].done, n, got[i].at.Sub(got[i-1].at), got[i-1].done, n, progressWait)
		}
	}
}

// TestInvalidate checks that a run after Invalidate re-chunks every note
// and leaves the same passages, not twice as many.
func TestInvalidate(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.md": "# A\n\nalpha apples.\n\n## More\n\nalpha again.\n",
		"b.md": "# B\n\nbeta bananas.\n",
	})
	first, err := f.ix.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ix.Invalidate(); err != nil {
		t.Fatal(err)
	}
	st, err := f.ix.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st.Changed, 2; got != want {
		t.Errorf("changed after Invalidate: got %d, want %d", got, want)
	}
	n, err := f.ix.BM25.Count()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := int(n), first.Chunks; got != want || st.Chunks != want {
		t.Errorf("passages after rebuild: got %d (stats %d), want %d", got, st.Chunks, want)
	}
	again, err := f.ix.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed != 0 {
		t.Errorf("run after the rebuild changed %d notes, want 0", again.Changed)
	}
}

// slowEmbedder takes at least wait per call, as a model does.
type slowEmbedder struct {
	*embedtest.Bag
	wait time.Duration
}

func (s *slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	time.Sleep(s.wait)
	return s.Bag.Embed(ctx, texts)
}

// TestEmbedProgressTimeLeft: Embed's progress carries the passages per
// second measured in this run and the time the rest would take at that
// rate, after a first report before the first batch, which has neither.
// Each batch of 32 takes at least 20 ms here, so no rate may pass 1,600 a
// second, the first run's or a resumed one's, whose passages
// embedded before it must not count; the last report has nothing left.
func TestEmbedProgressTimeLeft(t *testing.T) {
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nThe keel resists leeway number %d.\n", i, i)
	}
	f := newFixture(t, files)
	f.run()
	const wait = 20 * time.Millisecond
	e := &slowEmbedder{Bag: fakeEmbedder("slow"), wait: wait}
	f.enableDense(e)
	var got []Progress
	ctx, cancel := context.WithCancel(context.Background())
	f.ix.OnProgress = func(p Progress) {
		got = append(got, p)
		if p.Done >= 64 {
			cancel() // stop after two batches, to resume below
		}
	}
	if _, err := f.ix.Embed(ctx); err == nil {
		t.Fatal("Embed went on after its context was cancelled")
	}
	resumed := len(got)
	f.ix.OnProgress = func(p Progress) { got = append(got, p) }
	f.embed()
	if len(got) < 6 {
		t.Fatalf("%d progress reports, want one per batch: %+v", len(got), got)
	}
	const most = 32 / (float64(wait) / float64(time.Second))
	for i, p := range got {
		if i == 0 || i == resumed {
			// Each Embed's first report comes before it has a rate.
			if p.PerSecond != 0 || p.Left != 0 {
				t.Errorf("report before the first batch %+v, want no rate yet", p)
			}
			continue
		}
		if p.PerSecond <= 0 || p.PerSecond > most {
			t.Errorf("%d/%d: %.0f passages a second, want above 0 and at most %.0f", p.Done, p.Total, p.PerSecond, most)
		}
		want := time.Duration(float64(p.Total-p.Done) / p.PerSecond * float64(time.Second))
		if d := p.Left - want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("%d/%d at %.0f a second: %v left, want %v", p.Done, p.Total, p.PerSecond, p.Left, want)
		}
	}
	if last := got[len(got)-1]; last.Done != last.Total || last.Left != 0 {
		t.Errorf("last report %+v, want every passage done and nothing left", last)
	}
}
