package engine

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/vault"
)

// Watch brings the index up to date, then keeps it current as the vault
// changes and runs the rebuilds asked for, raising Progress, Changed and
// Warning events. It returns when ctx ends, after the pass in progress has
// stopped; only then may the engine be closed.
func (e *Engine) Watch(ctx context.Context) error {
	defer e.embedDone.Wait() // the index may close only after embedding stops
	watchCtx, stopWatch := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() {
		watched <- vault.Watch(watchCtx, e.ix.Vault, e.ix.Rules(), e.opts.Debounce, e.kickPaths)
	}()
	defer func() { stopWatch(); <-watched }()

	// The search modal's first keystroke must not build the word lists'
	// indexes (search.Searcher.Warm): warmed here, in the sidecar that
	// serves it, not in a one-shot command, which exits before they are
	// of use. Cheap once done: after a pass only the lists of a language
	// new to the vault are built.
	go e.snap.Load().searcher.Warm()
	e.kick()
	syncKick := e.syncs.start()
	defer e.syncs.stop()
	// The watch names the paths that changed, and a pass reads only
	// those; a whole walk now and then catches what its events missed
	// (a folder synced in while the watch was full, a network drive).
	walk := time.NewTicker(fullWalkEvery)
	defer walk.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-walk.C:
			e.kick()
		case err := <-watched:
			// The watch could not start (e.g. out of inotify watches): say
			// so, keep serving what is indexed, and never return to the
			// deferred receive a value it cannot get twice.
			watched <- err
			if err != nil {
				msg := "the vault is not being watched; edits show up after a restart or rebuild: " + err.Error()
				e.log.Warn(msg)
				e.emit(&Warning{Kind: WarnWatch, Message: msg})
			}
			<-ctx.Done()
			return nil
		case <-syncKick:
			e.runSyncs(ctx)
		case <-e.trigger:
			all, paths := e.takePending()
			e.pass(ctx, all, paths)
			go e.snap.Load().searcher.Warm()
		}
	}
}

// fullWalkEvery is how often Watch walks the whole vault besides the
// passes its events ask for.
const fullWalkEvery = 15 * time.Minute

// kick asks Watch for a pass over the whole vault; asks made while one
// waits are merged.
func (e *Engine) kick() { e.kickPaths(nil) }

// kickPaths asks Watch for a pass over the vault-relative paths (nil:
// the whole vault); asks made while one waits are merged.
func (e *Engine) kickPaths(paths []string) {
	e.pendMu.Lock()
	if paths == nil {
		e.pendAll = true
	}
	for _, p := range paths {
		e.pend[p] = true
	}
	e.pendMu.Unlock()
	select {
	case e.trigger <- struct{}{}:
	default:
	}
}

// takePending returns what was asked for since it was last called:
// the whole vault, or these paths.
func (e *Engine) takePending() (all bool, paths []string) {
	e.pendMu.Lock()
	defer e.pendMu.Unlock()
	all = e.pendAll
	for p := range e.pend {
		paths = append(paths, p)
	}
	e.pendAll, e.pend = false, map[string]bool{}
	return all, paths
}

// Rebuild asks Watch for a pass that re-reads every note, and reports
// false when one is already asked for or running.
func (e *Engine) Rebuild() bool {
	if !e.rebuilding.CompareAndSwap(false, true) {
		return false
	}
	e.kick()
	return true
}

// busy reports whether a pass runs, one is waiting, or vectors are being
// computed.
func (e *Engine) busy() bool {
	e.embedMu.Lock()
	embedding := e.embedRunning
	e.embedMu.Unlock()
	return e.indexing.Load() || len(e.trigger) > 0 || embedding
}

// passed reports whether a pass has finished since the engine started.
func (e *Engine) passed() bool { return e.snap.Load().passed }

// pass runs one index pass for Watch, over the whole vault or the paths
// given, and tells subscribers what changed.
func (e *Engine) pass(ctx context.Context, all bool, paths []string) {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	e.indexing.Store(true)
	defer e.indexing.Store(false)
	before := e.snap.Load()
	// What the catalog held before the pass, to name what it changed: a
	// snapshot that has not read it whole yet must do so now.
	beforeAll, err := before.notes.all()
	if err != nil {
		e.log.Error("read catalog before an index pass", "err", err)
		e.emit(&Warning{Kind: WarnIndex, Message: "indexing stopped: " + err.Error()})
		return
	}
	rebuild := e.rebuilding.Load()
	e.emit(&Progress{Phase: PhaseScan})

	var st index.Stats
	if rebuild {
		err = e.ix.Invalidate()
	}
	if err == nil && (all || rebuild) {
		st, err = e.ix.Run(ctx)
		if err == nil {
			// A source that fails is recorded and warned about; the
			// vault's pass stands.
			if serr := e.SyncSources(ctx, false); serr != nil && ctx.Err() == nil {
				e.emit(&Warning{Kind: WarnIndex, Message: serr.Error()})
			}
		}
	} else if err == nil {
		st, err = e.ix.RunPaths(ctx, paths)
	}
	if rebuild {
		e.rebuilding.Store(false)
	}
	if err == nil && e.ix.Dense() {
		e.embedLater(ctx)
	}
	if err != nil && ctx.Err() != nil {
		return // shutting down
	}
	if err != nil {
		msg := "indexing stopped: " + err.Error()
		e.log.Error(msg)
		e.emit(&Warning{Kind: WarnIndex, Message: msg})
	}
	after, lerr := e.load(before.passed || err == nil)
	if lerr != nil {
		e.log.Error("refresh after index pass", "err", lerr)
		return
	}
	e.snap.Store(after)

	total := st.Changed + st.Removed
	if after.dense.Passages > 0 {
		e.emit(&Progress{Phase: PhaseEmbed, Done: after.dense.Embedded, Total: after.dense.Passages})
	} else {
		e.emit(&Progress{Phase: PhaseIndex, Done: total, Total: total})
	}
	for _, sk := range newSkips(before.meta.Skipped, st.Skipped) {
		e.log.Warn("skipped", "path", sk.Path, "reason", sk.Reason)
		e.emit(&Warning{Kind: WarnSkipped, Message: fmt.Sprintf("Skipped %s: %s", sk.Path, sk.Reason)})
	}
	afterAll, _ := after.notes.all() // read whole: the pass read the catalog
	if moved := changed(beforeAll, afterAll, rebuild); len(moved) > 0 || rebuild {
		e.emit(&Changed{Paths: moved, Rebuild: rebuild})
	}
	if total > 0 || err != nil {
		e.log.Info("indexed", "changed", st.Changed, "removed", st.Removed, "notes", st.Notes, "took", st.Duration)
	}
}

// embedLater gives new passages their vectors in the background: one
// goroutine at a time, which goes round again if a pass finished meanwhile.
// Searches use whatever vectors exist; the index orders its writes so that
// a vector is never stored for a passage replaced while it was embedded.
func (e *Engine) embedLater(ctx context.Context) {
	e.embedMu.Lock()
	defer e.embedMu.Unlock()
	if e.embedRunning {
		e.embedAgain = true
		return
	}
	e.embedRunning = true
	e.embedDone.Add(1)
	go func() {
		defer e.embedDone.Done()
		for {
			e.emitEmbed()
			if _, err := e.embed(ctx); err != nil && ctx.Err() == nil {
				msg := "vectors are not up to date; search by meaning misses new passages: " + err.Error()
				e.log.Warn(msg)
				e.emit(&Warning{Kind: WarnEmbedder, Message: msg})
			}
			if snap := e.snap.Load(); snap != nil {
				if fresh, err := e.load(snap.passed); err == nil {
					e.snap.Store(fresh)
				}
			}
			e.emitEmbed()
			e.embedMu.Lock()
			if !e.embedAgain || ctx.Err() != nil {
				e.embedRunning = false
				e.embedMu.Unlock()
				return
			}
			e.embedAgain = false
			e.embedMu.Unlock()
		}
	}()
}

// embed gives new passages their vectors; Status reports its progress
// while it runs.
func (e *Engine) embed(ctx context.Context) (index.DenseStats, error) {
	defer e.embedding.Store(nil)
	return e.ix.Embed(ctx)
}

func (e *Engine) emitEmbed() {
	if snap := e.snap.Load(); snap != nil && snap.dense.Passages > 0 {
		e.emit(&Progress{Phase: PhaseEmbed, Done: snap.dense.Embedded, Total: snap.dense.Passages})
	}
}

// Reindexed is what a Reindex did.
type Reindexed struct {
	Full  bool
	Stats index.Stats
	// Vectors is search by meaning after the pass; its Embedder is empty
	// when no embedder is enabled.
	Vectors index.DenseStats
	// VectorsErr is why vectors are not up to date (keywords are).
	VectorsErr error
	// SourcesErr is why a source (git, folder) is not up to date; the
	// index serves what it held of it.
	SourcesErr error
	// Note says anything the counts do not (who did the pass).
	Note string
	Took time.Duration
}

// Reindex brings the index up to date now and waits for it: one pass
// (after forgetting every note when full), a compaction so that scores
// repeat from run to run, and vectors for new passages when an embedder is
// enabled. progress, when not nil, follows the pass. A cancelled Reindex
// leaves an index that serves and resumes on the next pass.
func (e *Engine) Reindex(ctx context.Context, full bool, progress func(Progress)) (Reindexed, error) {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	e.indexing.Store(true)
	defer e.indexing.Store(false)
	began := time.Now()
	if progress != nil {
		defer e.follow(func(p index.Progress) { progress(fromIndex(p)) })()
		progress(Progress{Phase: PhaseScan})
	}
	r := Reindexed{Full: full}
	if full {
		if err := e.ix.Invalidate(); err != nil {
			return r, err
		}
	}
	st, err := e.ix.Run(ctx)
	r.Stats = st
	if err == nil {
		r.SourcesErr = e.SyncSources(ctx, true)
		err = ctx.Err()
	}
	if err == nil {
		err = e.ix.BM25.Compact(ctx)
	}
	if rerr := e.refresh(err == nil); err == nil {
		err = rerr
	}
	if err != nil {
		return r, err
	}
	if e.ix.Dense() {
		r.Vectors, r.VectorsErr = e.embed(ctx)
		if err := e.refresh(true); err != nil {
			return r, err
		}
	}
	r.Took = time.Since(began)
	return r, nil
}

// changed lists the notes whose indexed content differs between two
// catalog reads, sorted; after a rebuild, every note.
func changed(before, after map[string]index.Entry, all bool) []string {
	var out []string
	for p, a := range after {
		if b, ok := before[p]; all || !ok || b.Hash != a.Hash {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// newSkips returns the skipped files of this pass that the last one did not
// skip, so that a warning is raised once per problem, not once per pass.
func newSkips(old, now []vault.Skip) []vault.Skip {
	seen := map[vault.Skip]bool{}
	for _, s := range old {
		seen[s] = true
	}
	var out []vault.Skip
	for _, s := range now {
		if !seen[s] {
			out = append(out, s)
		}
	}
	return out
}
