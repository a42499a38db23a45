package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/state"
)

// notes is a small real vault: four notes and one in a dot folder.
var notes = map[string]string{
	"Kitchen/Sourdough.md": "# Sourdough\n\nA loaf from flour, water and salt.\n\n## Starter\n\nKeep the starter at full hydration: equal weights of flour and water.\n",
	"Kitchen/Rye bread.md": "# Rye bread\n\nA sourdough loaf of rye flour, water and salt.\n\n## Levain\n\nBuild the levain from a ripe rye starter the evening before baking.\n",
	"Garden/Tomatoes.md":   "# Tomatoes\n\nStake the tomatoes early and water them at the root.\n",
	"Travel/Lisbon.md":     "# Lisbon\n\nTrams climb the hills; pastries with custard at every corner.\n",
	".obsidian/secret.md":  "# Hidden\n\nnot indexed\n",
}

// running is an engine watching a temp vault, as `quire serve` runs one.
type running struct {
	t      *testing.T
	vault  string
	e      *engine.Engine
	ix     *index.Index
	events chan engine.Event
}

// run indexes a temp vault holding files with a watching engine, and
// waits for the first pass. tweak may change the engine's options (its
// Index is open by then).
func run(t *testing.T, files map[string]string, tweak ...func(*engine.Options)) *running {
	t.Helper()
	r := &running{t: t, vault: t.TempDir(), events: make(chan engine.Event, 256)}
	writeNotes(t, r.vault, files)
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r.ix, err = index.Open(r.vault, st, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Index: r.ix, Config: config.Default()}
	for _, f := range tweak {
		f(&opts)
	}
	r.e, err = engine.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	unsubscribe := r.e.Subscribe(func(ev engine.Event) {
		select {
		case r.events <- ev:
		default: // a test that reads no events must not block the engine
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan error, 1)
	go func() { watched <- r.e.Watch(ctx) }()
	t.Cleanup(func() {
		unsubscribe()
		cancel()
		<-watched
		r.e.Close()
		r.ix.Close()
		st.Close()
	})
	r.waitIndexed()
	// A test hears what happens after the first pass.
	for len(r.events) > 0 {
		<-r.events
	}
	return r
}

// waitIndexed waits until a pass has finished and none runs or waits.
func (r *running) waitIndexed() {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if engine.Passed(r.e) && !engine.Busy(r.e) {
			return
		}
	}
	r.t.Fatal("the index pass did not finish in 10 s")
}

func (r *running) write(rel, body string) {
	r.t.Helper()
	writeNotes(r.t, r.vault, map[string]string{rel: body})
}

// waitEvent returns the first event that ok accepts.
func (r *running) waitEvent(what string, ok func(engine.Event) bool) engine.Event {
	r.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev := <-r.events:
			if ok(ev) {
				return ev
			}
		case <-timeout:
			r.t.Fatalf("no %s event", what)
		}
	}
}

// wantKind fails unless err is an engine error of kind k.
func wantKind(t *testing.T, err error, k engine.Kind) {
	t.Helper()
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Kind != k {
		t.Errorf("got error %v, want %s", err, k)
	}
}
