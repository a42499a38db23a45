package server

import (
	"context"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/grep"
)

// grep answers a grep.query from the vault's current files.
func (s *Server) grep(ctx context.Context, q proto.GrepQuery) (proto.GrepResult, error) {
	res, err := s.e.Grep(ctx, grep.Options{Pattern: q.Pattern, Regex: q.Regex, Case: grep.Case(q.Case),
		Context: q.Context, Source: q.Source, MaxMatches: q.MaxMatches}, q.MCP)
	if err != nil {
		return proto.GrepResult{}, err
	}
	out := proto.GrepResult{Files: res.Files, Truncated: res.Truncated, TimedOut: res.TimedOut, Warning: res.Warning}
	for _, m := range res.Matches {
		out.Matches = append(out.Matches, proto.GrepMatch{Source: m.Source, Path: m.Path, Line: m.Line, Text: m.Text,
			Spans: m.Spans, Before: m.Before, After: m.After})
	}
	for _, k := range res.Skipped {
		out.Skipped = append(out.Skipped, proto.GrepSkip(k))
	}
	return out, nil
}
