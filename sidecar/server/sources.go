package server

import (
	"context"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/source"
)

// note answers a note.get: the note's text as the index holds it, from
// the vault or from another source (a git source's at the revision
// indexed). A path without a source may be a key ("ops:runbooks/a.md"),
// as MCP's client of a running sidecar sends it.
func (s *Server) note(ctx context.Context, q proto.NoteGet) (proto.NoteResult, error) {
	key := q.Path
	if q.Source == source.Vault && source.Foreign(q.Path) {
		// Asked of the vault, a key would read another source's note.
		return proto.NoteResult{}, &proto.Error{Code: proto.CodeInvalidRequest, Message: "note.get: " + q.Path + " names another source's note; give its source apart"}
	}
	if q.Source != "" && q.Source != source.Vault {
		if err := source.CheckID(q.Source); err != nil {
			return proto.NoteResult{}, &proto.Error{Code: proto.CodeInvalidRequest, Message: "note.get: source: " + err.Error()}
		}
		key = source.Key(q.Source, q.Path)
	}
	text, err := s.e.Note(ctx, key, q.MCP)
	if err != nil {
		return proto.NoteResult{}, err
	}
	id, rel := source.Split(key)
	out := proto.NoteResult{Source: id, Path: rel, Text: text}
	if id != source.Vault {
		if out.Revision, err = s.e.Revision(id); err != nil {
			return proto.NoteResult{}, err
		}
	}
	return out, nil
}

// sources answers a sources.list, syncing every source first when asked.
func (s *Server) sources(ctx context.Context, q proto.SourcesList) (proto.SourcesResult, error) {
	var out proto.SourcesResult
	if q.Sync {
		if err := s.e.Sync(ctx); err != nil {
			if ctx.Err() != nil {
				return out, err
			}
			out.Warning = err.Error()
		}
	}
	list, err := s.e.Sources()
	if err != nil {
		return out, err
	}
	for _, st := range list {
		out.Sources = append(out.Sources, proto.SourceInfo{ID: st.ID, Kind: string(st.Kind), Where: st.Where, Revision: st.Revision,
			Notes: st.Notes, Passages: st.Passages, Vectors: st.Vectors, LastFetch: st.LastFetch, LastSync: st.LastSync,
			Error: st.Error, Skipped: st.Skipped})
	}
	return out, nil
}

// toc answers a toc.get.
func (s *Server) toc(ctx context.Context, q proto.TOCGet) (proto.TOCResult, error) {
	id := q.Source
	if id == "" {
		id = source.Vault
	}
	t, err := s.e.TOC(ctx, id, q.MCP)
	if err != nil {
		return proto.TOCResult{}, err
	}
	out := proto.TOCResult{Source: t.Source, Revision: t.Revision, Withheld: t.Withheld}
	for _, f := range t.Folders {
		pf := proto.TOCFolder{Folder: f.Folder}
		for _, n := range f.Notes {
			pn := proto.TOCNote{Source: t.Source, Path: n.Path, Title: n.Title, Tags: n.Tags}
			for _, h := range n.Headings {
				pn.Headings = append(pn.Headings, proto.TOCHeading(h))
			}
			pf.Notes = append(pf.Notes, pn)
		}
		out.Folders = append(out.Folders, pf)
	}
	return out, nil
}
