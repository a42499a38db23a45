package server

import (
	"sync"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/engine"
)

// progressEvery spaces index.progress events: a few a second, except that
// a step of a twentieth of the total always goes out (the index reports
// about that many per phase), so a fast pass over a small vault still
// shows its steps.
const (
	progressEvery = 250 * time.Millisecond
	progressSteps = 20
)

// pushed is the last index.progress event broadcast, for thinning.
type pushed struct {
	mu    sync.Mutex
	phase engine.Phase
	done  int
	at    time.Time
}

// record notes a phase's start or end, which always goes out.
func (p *pushed) record(ev *engine.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.done, p.at = ev.Phase, ev.Done, time.Now()
}

// due reports whether an in-between progress event goes out, and records
// it when it does.
func (p *pushed) due(ev *engine.Progress) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	step := ev.Phase == p.phase && ev.Done-p.done >= max(1, ev.Total/progressSteps)
	if !step && ev.Phase == p.phase && now.Sub(p.at) < progressEvery {
		return false
	}
	p.phase, p.done, p.at = ev.Phase, ev.Done, now
	return true
}

// warningCodes gives some engine warnings a code the plugin acts on.
var warningCodes = map[engine.WarningKind]proto.ErrorCode{
	engine.WarnIndex:    proto.CodeInternal,
	engine.WarnEmbedder: proto.CodeModelUnavailable,
}

// push maps an engine event to its wire event and broadcasts it.
func (s *Server) push(ev engine.Event) {
	switch ev := ev.(type) {
	case *engine.Progress:
		// Only in-between progress is thinned: a phase's start and end
		// always go out.
		if ev.Total > 0 && ev.Done > 0 && ev.Done < ev.Total && !s.lastPush.due(ev) {
			return
		}
		if ev.Total > 0 && (ev.Done == 0 || ev.Done >= ev.Total) {
			s.lastPush.record(ev)
		}
		s.broadcast(proto.TypeIndexProgress, proto.IndexProgress{Phase: proto.Phase(ev.Phase), Done: ev.Done, Total: ev.Total,
			PerSecond: ev.PerSecond, SecondsLeft: ev.Left.Seconds()})
	case *engine.Changed:
		s.broadcast(proto.TypeIndexChanged, proto.IndexChanged{Paths: ev.Paths})
	case *engine.Warning:
		s.broadcast(proto.TypeSidecarWarning, proto.SidecarWarning{Message: ev.Message, Code: warningCodes[ev.Kind]})
	case *engine.IngestEvent:
		s.pushIngest(ev.Event)
	}
}
