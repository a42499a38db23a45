package index

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

func TestProgressWriter(t *testing.T) {
	files := map[string]string{}
	for i := range 250 {
		files[fmt.Sprintf("n%03d.md", i)] = fmt.Sprintf("# Note %d\n\nword%d text.\n", i, i)
	}
	f := newFixture(t, files)
	var mu sync.Mutex
	var got [][2]int
	f.ix.Progress = ProgressWriter(func(phase string, done, total int) {
		if phase != PhaseIndex {
			t.Errorf("phase %q during Run", phase)
		}
		mu.Lock()
		got = append(got, [2]int{done, total})
		mu.Unlock()
	})
	if _, err := f.ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{100, 250}, {200, 250}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestParseProgress(t *testing.T) {
	tests := []struct {
		line        string
		phase       string
		done, total int
		ok          bool
	}{
		{"indexing: 100/250 notes", PhaseIndex, 100, 250, true},
		{"indexing: 1,200/12,345 notes", PhaseIndex, 1200, 12345, true},
		{"vectors 3,000/41,230 chunks", PhaseEmbed, 3000, 41230, true},
		{"Indexed 3 notes (3 changed, 0 removed), 3 chunks, 0 skipped in 1ms.", "", 0, 0, false},
		{"Embedded 2 chunks in 2 windows (use-lite).", "", 0, 0, false},
		{"indexing: x/2 notes", "", 0, 0, false},
		{"indexing: 1/2", "", 0, 0, false},
	}
	for _, tt := range tests {
		phase, done, total, ok := parseProgress(tt.line)
		if ok != tt.ok || ok && (phase != tt.phase || done != tt.done || total != tt.total) {
			t.Errorf("parseProgress(%q) = %q, %d, %d, %v; want %q, %d, %d, %v", tt.line, phase, done, total, ok, tt.phase, tt.done, tt.total, tt.ok)
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
