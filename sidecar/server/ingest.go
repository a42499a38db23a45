package server

import (
	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/ingest"
)

// pushIngest maps an ingest event to its wire event and broadcasts it.
func (s *Server) pushIngest(ev ingest.Event) {
	switch ev := ev.(type) {
	case ingest.Progress:
		s.broadcast(proto.TypeIngestProgress, proto.IngestProgress{ID: ev.ID, Source: ev.Source, Step: proto.IngestStep(ev.Step),
			Index: ev.Index, Total: ev.Total})
	case ingest.Done:
		d := proto.IngestDone{ID: ev.ID, Source: ev.Source, Note: ev.Note, Title: ev.Title, Written: ev.Written, Review: ev.Review,
			Dropped: []proto.Dropped{}, Summarised: ev.Summarised, Unread: ev.Unread}
		if d.Written == nil {
			d.Written = []string{}
		}
		if d.Review == nil {
			d.Review = []string{}
		}
		for _, x := range ev.Dropped {
			d.Dropped = append(d.Dropped, proto.Dropped{What: x.What, Count: x.Count, Reason: x.Reason})
		}
		s.broadcast(proto.TypeIngestDone, d)
	case ingest.Failed:
		s.broadcast(proto.TypeIngestFailed, proto.IngestFailed{ID: ev.ID, Source: ev.Source, Code: proto.IngestFailCode(ev.Code), Message: ev.Message})
	case ingest.Written:
		s.broadcast(proto.TypeNoteWritten, proto.NoteWritten{Path: ev.Path, Kind: ev.Kind, Created: ev.Created})
	case ingest.Reviewed:
		s.broadcast(proto.TypeReviewCreated, proto.ReviewCreated{Path: ev.Path, Reason: ev.Reason, About: ev.About})
	}
}
