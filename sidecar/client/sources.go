package client

import (
	"context"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/source"
)

// Sources is engine.Engine.Sources through the sidecar; sync asks it to
// bring every source up to date first (engine.Engine.SyncSources with
// fetch), and warning says why that failed.
func (r *Remote) Sources(ctx context.Context, sync bool) (list []engine.SourceStatus, warning string, err error) {
	var res proto.SourcesResult
	if err := r.c.Call(ctx, proto.TypeSourcesList, proto.SourcesList{Sync: sync}, &res); err != nil {
		return nil, "", r.wrap(err)
	}
	for _, s := range res.Sources {
		list = append(list, engine.SourceStatus{ID: s.ID, Kind: source.Kind(s.Kind), Where: s.Where, Revision: s.Revision,
			Notes: s.Notes, Passages: s.Passages, Vectors: s.Vectors, LastFetch: s.LastFetch, LastSync: s.LastSync,
			Error: s.Error, Skipped: s.Skipped})
	}
	return list, res.Warning, nil
}

// TOC is engine.Engine.TOC through the sidecar.
func (r *Remote) TOC(ctx context.Context, id string, mcp bool) (engine.TOC, error) {
	var res proto.TOCResult
	if err := r.c.Call(ctx, proto.TypeTOCGet, proto.TOCGet{Source: id, MCP: mcp}, &res); err != nil {
		return engine.TOC{}, r.wrap(err)
	}
	out := engine.TOC{Source: res.Source, Revision: res.Revision, Withheld: res.Withheld, Folders: []engine.TOCFolder{}}
	for _, f := range res.Folders {
		ef := engine.TOCFolder{Folder: f.Folder}
		for _, n := range f.Notes {
			en := engine.TOCNote{Path: n.Path, Title: n.Title, Tags: n.Tags}
			for _, h := range n.Headings {
				en.Headings = append(en.Headings, engine.TOCHeading(h))
			}
			ef.Notes = append(ef.Notes, en)
		}
		out.Folders = append(out.Folders, ef)
	}
	return out, nil
}

// TOC is engine.Engine.TOC through the sidecar.
func (v *Shared) TOC(ctx context.Context, id string, forMCP bool) (engine.TOC, error) {
	return with(ctx, v, nil, func(r *Remote) (engine.TOC, error) { return r.TOC(ctx, id, forMCP) })
}
