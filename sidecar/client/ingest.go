package client

import (
	"context"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/ingest"
)

// AddSource is engine.Engine.AddSource through the sidecar: it queues a URL
// or file and returns the item's id. A refusal is an *engine.Error.
func (r *Remote) AddSource(ctx context.Context, source string, resummarise bool) (uint64, error) {
	var res proto.IngestResult
	if err := r.c.Call(ctx, proto.TypeIngestAdd, proto.IngestAdd{Source: source, Resummarise: resummarise}, &res); err != nil {
		return 0, r.wrap(err)
	}
	return res.ID, nil
}

// IngestEvent maps a pushed ingest event back to the worker's event; ok
// is false for any other event.
func IngestEvent(env proto.Envelope) (ev ingest.Event, ok bool) {
	switch env.Type {
	case proto.TypeIngestProgress:
		var p proto.IngestProgress
		if env.Decode(&p) != nil {
			return nil, false
		}
		return ingest.Progress{ID: p.ID, Source: p.Source, Step: ingest.Step(p.Step), Index: p.Index, Total: p.Total}, true
	case proto.TypeIngestDone:
		var d proto.IngestDone
		if env.Decode(&d) != nil {
			return nil, false
		}
		out := ingest.Done{ID: d.ID, Source: d.Source, Note: d.Note, Title: d.Title, Written: d.Written, Review: d.Review,
			Summarised: d.Summarised, Unread: d.Unread}
		for _, x := range d.Dropped {
			out.Dropped = append(out.Dropped, ingest.Dropped{What: x.What, Count: x.Count, Reason: x.Reason})
		}
		return out, true
	case proto.TypeIngestFailed:
		var f proto.IngestFailed
		if env.Decode(&f) != nil {
			return nil, false
		}
		return ingest.Failed{ID: f.ID, Source: f.Source, Code: ingest.FailCode(f.Code), Message: f.Message}, true
	case proto.TypeNoteWritten:
		var n proto.NoteWritten
		if env.Decode(&n) != nil {
			return nil, false
		}
		return ingest.Written{Path: n.Path, Kind: n.Kind, Created: n.Created}, true
	case proto.TypeReviewCreated:
		var rc proto.ReviewCreated
		if env.Decode(&rc) != nil {
			return nil, false
		}
		return ingest.Reviewed{Path: rc.Path, Reason: rc.Reason, About: rc.About}, true
	}
	return nil, false
}
