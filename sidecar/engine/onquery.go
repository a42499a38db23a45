package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quire-app/quire/sidecar/config"
)

// Fetch-on-query: a git source whose fetch policy is on-query is
// fetched (a url source's mirror) or read again (a clone's branch head)
// when a query comes and its last fetch is older than onQueryFloor. The
// sync runs in Watch's loop, after any pass in progress; the query waits
// for it at most onQueryWait, then serves what the index holds.
const (
	onQueryFloor = time.Minute
	onQueryWait  = 250 * time.Millisecond
)

// errNotWatching answers a sync asked of a Watch that has stopped.
var errNotWatching = errors.New("the engine stopped before the sources were synced")

// sourceSyncs are the source syncs asked of Watch, and when each
// on-query source was last fetched or tried.
type sourceSyncs struct {
	watching atomic.Bool
	mu       sync.Mutex
	kick     chan struct{}
	asks     []syncAsk
	tried    map[string]time.Time
	floor    time.Duration // 0: onQueryFloor; tests shorten it
}

// syncAsk asks for the sources ids to be synced (nil: every source, and
// those no longer configured dropped); done gets the outcome.
type syncAsk struct {
	ids  []string
	done chan error
}

// start makes Watch's loop take asks; it returns the channel that wakes
// the loop.
func (s *sourceSyncs) start() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kick == nil {
		s.kick = make(chan struct{}, 1)
	}
	s.watching.Store(true)
	return s.kick
}

// stop answers the asks left when Watch returns.
func (s *sourceSyncs) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watching.Store(false)
	for _, a := range s.asks {
		a.done <- errNotWatching
	}
	s.asks = nil
}

// ask queues a sync of ids for Watch's loop; ok is false when no Watch
// runs.
func (s *sourceSyncs) ask(ids []string) (done <-chan error, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.watching.Load() {
		return nil, false
	}
	ch := make(chan error, 1)
	s.asks = append(s.asks, syncAsk{ids: ids, done: ch})
	select {
	case s.kick <- struct{}{}:
	default:
	}
	return ch, true
}

// take returns the asks queued since, and the sources they name
// together (nil: every source).
func (s *sourceSyncs) take() (asks []syncAsk, ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	asks, s.asks = s.asks, nil
	for _, a := range asks {
		if a.ids == nil {
			return asks, nil
		}
		ids = append(ids, a.ids...)
	}
	slices.Sort(ids)
	return asks, slices.Compact(ids)
}

// runSyncs is Watch's side: one sync pass for every ask queued.
func (e *Engine) runSyncs(ctx context.Context) {
	asks, ids := e.syncs.take()
	if len(asks) == 0 {
		return
	}
	err := e.syncPass(ctx, ids, true)
	for _, a := range asks {
		a.done <- err
	}
}

// Sync brings every source up to date now, fetching url sources' mirrors
// whatever their policy, and waits for it: in Watch's loop when one runs
// (after the pass in progress), else here. The snapshot then holds what
// changed, and subscribers are told.
func (e *Engine) Sync(ctx context.Context) error {
	done, ok := e.syncs.ask(nil)
	if !ok {
		return e.syncPass(ctx, nil, false)
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// syncPass syncs the sources ids (nil: all) as a pass of its own, then
// replaces the snapshot and names the notes that changed; watching: new
// passages get vectors in the background, under Watch's ctx.
func (e *Engine) syncPass(ctx context.Context, ids []string, watching bool) error {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	e.indexing.Store(true)
	defer e.indexing.Store(false)
	before := e.snap.Load()
	beforeAll, err := before.notes.all()
	if err != nil {
		return err
	}
	serr := e.syncSources(ctx, true, ids)
	after, err := e.load(before.passed)
	if err != nil {
		return err
	}
	e.snap.Store(after)
	if watching && e.ix.Dense() {
		e.embedLater(ctx)
	}
	afterAll, _ := after.notes.all()
	if moved := changed(beforeAll, afterAll, false); len(moved) > 0 {
		e.emit(&Changed{Paths: moved})
	}
	return serr
}

// fetchOnQuery asks Watch to sync the on-query sources whose last fetch
// is older than the floor, and waits at most wait for it. Without a
// Watch (a one-shot command) it does nothing: the query serves what the
// index holds, and quire index fetches.
func (e *Engine) fetchOnQuery(ctx context.Context, wait time.Duration) {
	if !e.syncs.watching.Load() {
		return
	}
	due := e.dueOnQuery(time.Now())
	if len(due) == 0 {
		return
	}
	done, ok := e.syncs.ask(due)
	if !ok || wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

// dueOnQuery returns the on-query sources last fetched (or tried) before
// the floor, and marks them tried now.
func (e *Engine) dueOnQuery(now time.Time) []string {
	cfg := e.Config()
	s := &e.syncs
	s.mu.Lock()
	defer s.mu.Unlock()
	floor := s.floor
	if floor == 0 {
		floor = onQueryFloor
	}
	var due []string
	for id, g := range cfg.Sources.Git {
		if strings.TrimSpace(g.Fetch) != config.FetchOnQuery {
			continue
		}
		last, ok := s.tried[id]
		if !ok {
			// A restart within the floor does not fetch again.
			if st, err := e.ix.SourceState(id); err == nil {
				last = st.Fetched
				if g.URL == "" {
					last = st.Synced
				}
			}
		}
		if now.Sub(last) < floor {
			continue
		}
		if s.tried == nil {
			s.tried = map[string]time.Time{}
		}
		s.tried[id] = now
		due = append(due, id)
	}
	slices.Sort(due)
	return due
}
