package server

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

// snapshot is the catalog as of the last index pass. Requests read it
// instead of the catalog, which costs a full read per call.
type snapshot struct {
	entries  map[string]index.Entry
	meta     index.Meta
	searcher *search.Searcher
	// passed is true once a pass finished since the server started:
	// before that, search results may miss notes not yet indexed.
	passed bool
	// dense counts passages with vectors, when an embedder is enabled.
	dense index.DenseStats
}

// load reads the catalog into a new snapshot.
func (s *Server) load(passed bool) (*snapshot, error) {
	entries, err := s.ix.Entries()
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	meta, err := s.ix.Meta()
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	count := map[string]int{}
	for _, e := range entries {
		if e.Lang != "" {
			count[e.Lang]++
		}
	}
	langs := index.ByCount(count) // from this read: the catalog is read once
	snap := &snapshot{
		entries:  entries,
		meta:     meta,
		searcher: &search.Searcher{BM25: s.ix.BM25, Langs: langs, Synonyms: search.SynonymsIf(s.config().Search.Synonyms)},
		passed:   passed,
	}
	if s.ix.Dense() {
		snap.searcher.Dense = s.ix
		snap.dense = s.ix.DenseStatsOf(entries)
	}
	return snap, nil
}

// progressEvery spaces index.progress events: a few a second at most.
const progressEvery = 250 * time.Millisecond

// Watch brings the index up to date, then keeps it current as the vault
// changes and runs the rebuilds clients ask for, pushing index.progress,
// index.changed and sidecar.warning events. It returns when ctx ends, after
// the pass in progress has stopped; only then may the index be closed.
func (s *Server) Watch(ctx context.Context) error {
	s.ix.Progress = index.ProgressWriter(func(phase string, done, total int) {
		now := time.Now().UnixNano()
		if last := s.lastPush.Load(); now-last < int64(progressEvery) && done < total {
			return
		}
		s.lastPush.Store(now)
		p := proto.PhaseIndex
		if phase == index.PhaseEmbed {
			p = proto.PhaseEmbed
		}
		s.broadcast(proto.TypeIndexProgress, proto.IndexProgress{Phase: p, Done: done, Total: total})
	})
	defer func() { s.ix.Progress = nil }()

	defer s.embedDone.Wait() // the index may close only after embedding stops
	watchCtx, stopWatch := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() {
		watched <- vault.Watch(watchCtx, s.ix.Vault, s.ix.Rules(), s.opts.Debounce, func([]string) { s.kick() })
	}()
	defer func() { stopWatch(); <-watched }()

	s.kick()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-watched:
			// The watch could not start (e.g. out of inotify watches): say
			// so, keep serving what is indexed, and never return to the
			// deferred receive a value it cannot get twice.
			watched <- err
			if err != nil {
				msg := "the vault is not being watched; edits show up after a restart or rebuild: " + err.Error()
				s.log.Warn(msg)
				s.broadcast(proto.TypeSidecarWarning, proto.SidecarWarning{Message: msg})
			}
			<-ctx.Done()
			return nil
		case <-s.trigger:
			s.pass(ctx)
		}
	}
}

// kick asks Watch for a pass; asks made while one waits are merged.
func (s *Server) kick() {
	select {
	case s.trigger <- struct{}{}:
	default:
	}
}

// rebuild asks for a pass that re-reads every note, and reports false when
// one is already asked for or running.
func (s *Server) rebuild() bool {
	if !s.rebuilding.CompareAndSwap(false, true) {
		return false
	}
	s.kick()
	return true
}

// pass runs one index pass and tells clients what changed.
func (s *Server) pass(ctx context.Context) {
	s.indexing.Store(true)
	defer s.indexing.Store(false)
	before := s.snap.Load()
	rebuild := s.rebuilding.Load()
	s.broadcast(proto.TypeIndexProgress, proto.IndexProgress{Phase: proto.PhaseScan})

	var st index.Stats
	var err error
	if rebuild {
		err = s.ix.Invalidate()
	}
	if err == nil {
		st, err = s.ix.Run(ctx)
	}
	if rebuild {
		s.rebuilding.Store(false)
	}
	if err == nil && s.ix.Dense() {
		s.embedLater(ctx)
	}
	if err != nil && ctx.Err() != nil {
		return // shutting down
	}
	if err != nil {
		msg := "indexing stopped: " + err.Error()
		s.log.Error(msg)
		s.broadcast(proto.TypeSidecarWarning, proto.SidecarWarning{Message: msg, Code: proto.CodeInternal})
	}
	after, lerr := s.load(before.passed || err == nil)
	if lerr != nil {
		s.log.Error("refresh after index pass", "err", lerr)
		return
	}
	s.snap.Store(after)

	total := st.Changed + st.Removed
	if after.dense.Passages > 0 {
		s.broadcast(proto.TypeIndexProgress, proto.IndexProgress{Phase: proto.PhaseEmbed, Done: after.dense.Embedded, Total: after.dense.Passages})
	} else {
		s.broadcast(proto.TypeIndexProgress, proto.IndexProgress{Phase: proto.PhaseIndex, Done: total, Total: total})
	}
	for _, sk := range newSkips(before.meta.Skipped, st.Skipped) {
		s.log.Warn("skipped", "path", sk.Path, "reason", sk.Reason)
		s.broadcast(proto.TypeSidecarWarning, proto.SidecarWarning{Message: fmt.Sprintf("Skipped %s: %s", sk.Path, sk.Reason)})
	}
	paths := changed(before.entries, after.entries, rebuild)
	if len(paths) > 0 || rebuild {
		s.broadcast(proto.TypeIndexChanged, proto.IndexChanged{Paths: paths})
	}
	if total > 0 || err != nil {
		s.log.Info("indexed", "changed", st.Changed, "removed", st.Removed, "notes", st.Notes, "took", st.Duration)
	}
}

// embedLater gives new passages their vectors in the background: one
// goroutine at a time, which goes round again if a pass finished meanwhile.
// Searches use whatever vectors exist; the index orders its writes so that
// a vector is never stored for a passage replaced while it was embedded.
func (s *Server) embedLater(ctx context.Context) {
	s.embedMu.Lock()
	defer s.embedMu.Unlock()
	if s.embedRunning {
		s.embedAgain = true
		return
	}
	s.embedRunning = true
	s.embedDone.Add(1)
	go func() {
		defer s.embedDone.Done()
		for {
			s.broadcastEmbed()
			if _, err := s.ix.Embed(ctx); err != nil && ctx.Err() == nil {
				msg := "vectors are not up to date; search by meaning misses new passages: " + err.Error()
				s.log.Warn(msg)
				s.broadcast(proto.TypeSidecarWarning, proto.SidecarWarning{Message: msg, Code: proto.CodeModelUnavailable})
			}
			if snap := s.snap.Load(); snap != nil {
				if fresh, err := s.load(snap.passed); err == nil {
					s.snap.Store(fresh)
				}
			}
			s.broadcastEmbed()
			s.embedMu.Lock()
			if !s.embedAgain || ctx.Err() != nil {
				s.embedRunning = false
				s.embedMu.Unlock()
				return
			}
			s.embedAgain = false
			s.embedMu.Unlock()
		}
	}()
}

func (s *Server) broadcastEmbed() {
	if snap := s.snap.Load(); snap != nil && snap.dense.Passages > 0 {
		s.broadcast(proto.TypeIndexProgress, proto.IndexProgress{Phase: proto.PhaseEmbed, Done: snap.dense.Embedded, Total: snap.dense.Passages})
	}
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
// skip, so that a warning is pushed once per problem, not once per pass.
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
