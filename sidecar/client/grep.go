package client

import (
	"context"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/grep"
)

// Grep is engine.Engine.Grep through the sidecar.
func (r *Remote) Grep(ctx context.Context, o grep.Options, mcp bool) (grep.Result, error) {
	var res proto.GrepResult
	q := proto.GrepQuery{Pattern: o.Pattern, Regex: o.Regex, Case: string(o.Case), Context: o.Context, Source: o.Source,
		MaxMatches: o.MaxMatches, MCP: mcp}
	if err := r.c.Call(ctx, proto.TypeGrepQuery, q, &res); err != nil {
		return grep.Result{}, r.wrap(err)
	}
	out := grep.Result{Files: res.Files, Truncated: res.Truncated, TimedOut: res.TimedOut, Warning: res.Warning}
	for _, m := range res.Matches {
		out.Matches = append(out.Matches, grep.Match{Source: m.Source, Path: m.Path, Line: m.Line, Text: m.Text,
			Spans: m.Spans, Before: m.Before, After: m.After})
	}
	for _, k := range res.Skipped {
		out.Skipped = append(out.Skipped, grep.Skip(k))
	}
	return out, nil
}
