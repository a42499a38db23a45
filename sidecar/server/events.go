package server

import (
	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/engine"
)

// warningCodes gives some engine warnings a code the plugin acts on.
var warningCodes = map[engine.WarningKind]proto.ErrorCode{
	engine.WarnIndex:    proto.CodeInternal,
	engine.WarnEmbedder: proto.CodeModelUnavailable,
}

// push maps an engine event to its wire event and broadcasts it.
func (s *Server) push(ev engine.Event) {
	switch ev := ev.(type) {
	case *engine.Progress:
		// As often as the index reports it, which thins it.
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
