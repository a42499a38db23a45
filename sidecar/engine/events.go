package engine

import (
	"time"

	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/ingest"
)

// Event is something that happened in the engine that front ends may
// show: *Progress, *Changed, *Warning or *IngestEvent.
type Event interface{ event() }

// Phase is the stage a pass is in.
type Phase string

// Phases of an index pass.
const (
	PhaseScan  Phase = "scan"  // comparing the vault with the catalog
	PhaseIndex Phase = "index" // notes (re-)read and chunked
	PhaseEmbed Phase = "embed" // passages given vectors
)

// Progress is how far a pass has come: notes for PhaseIndex, passages for
// PhaseEmbed; Total is 0 while unknown.
type Progress struct {
	Phase       Phase
	Done, Total int
	// PerSecond and Left are, while passages are embedded, the passages
	// embedded per second (wall time) measured in this run and the time
	// the rest would take at that rate: an estimate, 0 until measured.
	PerSecond float64
	Left      time.Duration
}

// fromIndex is the index's progress as the engine reports it.
func fromIndex(p index.Progress) Progress {
	ph := PhaseIndex
	if p.Phase == index.PhaseEmbed {
		ph = PhaseEmbed
	}
	return Progress{Phase: ph, Done: p.Done, Total: p.Total, PerSecond: p.PerSecond, Left: p.Left}
}

// Changed lists the notes whose indexed content changed in a pass
// (every note after a rebuild), sorted.
type Changed struct {
	Paths []string
	// Rebuild is true after a full pass.
	Rebuild bool
}

// WarningKind says what a warning is about, for front ends that map it to
// a code.
type WarningKind string

// Warning kinds.
const (
	WarnSkipped  WarningKind = "skipped"  // a file left out of the index
	WarnWatch    WarningKind = "watch"    // the vault is not being watched
	WarnIndex    WarningKind = "index"    // an index pass stopped
	WarnEmbedder WarningKind = "embedder" // vectors could not be computed
)

// Warning is a problem the user should hear about while the engine goes on.
type Warning struct {
	Kind    WarningKind
	Message string
}

// IngestEvent is an event of the ingest worker.
type IngestEvent struct {
	Event ingest.Event
}

func (*Progress) event()    {}
func (*Changed) event()     {}
func (*Warning) event()     {}
func (*IngestEvent) event() {}

// Subscribe calls f with every event from now on, from the goroutine that
// raised it: f must not block. The returned function stops it.
func (e *Engine) Subscribe(f func(Event)) (cancel func()) {
	e.subMu.Lock()
	defer e.subMu.Unlock()
	id := int(e.ids.Add(1))
	e.subs[id] = f
	return func() {
		e.subMu.Lock()
		defer e.subMu.Unlock()
		delete(e.subs, id)
	}
}

func (e *Engine) emit(ev Event) {
	e.subMu.Lock()
	fs := make([]func(Event), 0, len(e.subs))
	for _, f := range e.subs {
		fs = append(fs, f)
	}
	e.subMu.Unlock()
	for _, f := range fs {
		f(ev)
	}
}

// progress receives the index's progress and passes it on to subscribers
// and to the calls following a pass.
func (e *Engine) progress(p index.Progress) {
	ep := fromIndex(p)
	if ep.Phase == PhaseEmbed {
		if ep.Done < ep.Total {
			e.embedding.Store(&ep)
		} else {
			e.embedding.Store(nil) // every passage has its vector
		}
	}
	e.emit(&ep)
	e.progMu.Lock()
	fs := make([]func(index.Progress), 0, len(e.progs))
	for _, f := range e.progs {
		fs = append(fs, f)
	}
	e.progMu.Unlock()
	for _, f := range fs {
		f(p)
	}
}

// follow calls f with the index's progress until the returned function is
// called.
func (e *Engine) follow(f func(index.Progress)) func() {
	if f == nil {
		return func() {}
	}
	e.progMu.Lock()
	defer e.progMu.Unlock()
	id := int(e.ids.Add(1))
	e.progs[id] = f
	return func() {
		e.progMu.Lock()
		defer e.progMu.Unlock()
		delete(e.progs, id)
	}
}
