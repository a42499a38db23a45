package server

import (
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/engine"
)

// progressEvery spaces index.progress events: a few a second at most.
const progressEvery = 250 * time.Millisecond

// warningCodes gives some engine warnings a code the plugin acts on.
var warningCodes = map[engine.WarningKind]proto.ErrorCode{
	engine.WarnIndex:    proto.CodeInternal,
	engine.WarnEmbedder: proto.CodeModelUnavailable,
}

// push maps an engine event to its wire event and broadcasts it.
func (s *Server) push(ev engine.Event) {
	switch ev := ev.(type) {
	case *engine.Progress:
		if ev.Total > 0 && ev.Done < ev.Total {
			// Only in-between progress is thinned: a phase's start and end
			// always go out.
			now := time.Now().UnixNano()
			if last := s.lastPush.Load(); now-last < int64(progressEvery) {
				return
			}
			s.lastPush.Store(now)
		}
		s.broadcast(proto.TypeIndexProgress, proto.IndexProgress{Phase: proto.Phase(ev.Phase), Done: ev.Done, Total: ev.Total})
	case *engine.Changed:
		s.broadcast(proto.TypeIndexChanged, proto.IndexChanged{Paths: ev.Paths})
	case *engine.Warning:
		s.broadcast(proto.TypeSidecarWarning, proto.SidecarWarning{Message: ev.Message, Code: warningCodes[ev.Kind]})
	case *engine.IngestEvent:
		s.pushIngest(ev.Event)
	}
}
