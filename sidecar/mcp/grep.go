package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/grep"
)

// Grep limits: a client's context is small, and a pattern that matches
// thousands of lines says nothing a narrower one would not.
const (
	defaultGrepMatches = 50
	maxGrepMatches     = 200
	defaultGrepContext = 2
)

type (
	grepIn struct {
		Pattern string `json:"pattern" jsonschema:"the exact text to find (a host name, a number, an identifier, a phrase), or a regular expression with mode regex"`
		Mode    string `json:"mode,omitempty" jsonschema:"literal (the default: pattern is plain text) or regex (Go RE2 syntax, one line at a time)"`
		Case    string `json:"case,omitempty" jsonschema:"smart (the default: case-sensitive only when pattern has an upper-case letter), sensitive or ignore"`
		Source  string `json:"source,omitempty" jsonschema:"only this source; vault is the Obsidian vault"`
		Context *int   `json:"context,omitempty" jsonschema:"lines shown before and after each match, 0 to 10; default 2"`
		Max     int    `json:"max,omitempty" jsonschema:"most matching lines to return, 1 to 200; default 50"`
	}
	// GrepResult is what the grep tool returns.
	GrepResult struct {
		Matches   []GrepMatch `json:"matches" jsonschema:"matching lines in source, path and line order; empty when nothing matched"`
		Files     int         `json:"files" jsonschema:"files opened"`
		Skipped   []File      `json:"skipped" jsonschema:"files left out (too large, binary, not UTF-8), with why"`
		Truncated bool        `json:"truncated" jsonschema:"true when more lines match than max: narrow the pattern"`
		TimedOut  bool        `json:"timedOut" jsonschema:"true when the search ran out of time before every file was read"`
		Warning   string      `json:"warning,omitempty"`
	}
	// GrepMatch is one matching line.
	GrepMatch struct {
		Source string   `json:"source" jsonschema:"the source id; vault for the vault"`
		Path   string   `json:"path" jsonschema:"the file's path inside its source; pass a vault note's path to get_note to read it whole"`
		Line   int      `json:"line" jsonschema:"1-based line number"`
		Text   string   `json:"text" jsonschema:"the line"`
		Before []string `json:"before,omitempty" jsonschema:"the lines just before it"`
		After  []string `json:"after,omitempty" jsonschema:"the lines just after it"`
	}
)

func addGrep(s *sdk.Server, t *tools) {
	sdk.AddTool(s, &sdk.Tool{Name: "grep", Annotations: readOnly("Find exact text"),
		Description: "Find the lines of the user's notes that hold exact text, as the files are now: host names, IP addresses, " +
			"version numbers, identifiers, tags, file paths, error messages, a phrase word for word — what search_knowledge may " +
			"split into words or miss. A literal string by default, or a regular expression (mode: regex). Returns each matching " +
			"line with its path, line number and the lines around it."},
		t.grep)
}

func (t *tools) grep(ctx context.Context, _ *sdk.CallToolRequest, in grepIn) (*sdk.CallToolResult, GrepResult, error) {
	// Checked trimmed, searched as given: spaces at its ends are part
	// of an exact string.
	if _, err := checkText("pattern", in.Pattern); err != nil {
		return nil, GrepResult{}, err
	}
	o := grep.Options{Pattern: in.Pattern, Case: grep.Case(in.Case), Source: in.Source, Context: defaultGrepContext, MaxMatches: in.Max}
	switch in.Mode {
	case "", "literal":
	case "regex":
		o.Regex = true
	default:
		return nil, GrepResult{}, argError("mode is %q; use literal or regex", in.Mode)
	}
	if in.Context != nil {
		o.Context = *in.Context
	}
	switch {
	case in.Max == 0:
		o.MaxMatches = defaultGrepMatches
	case in.Max < 0 || in.Max > maxGrepMatches:
		return nil, GrepResult{}, argError("max is %d; it must be between 1 and %d", in.Max, maxGrepMatches)
	}
	res, err := t.b.Grep(ctx, o, true)
	if err != nil {
		return nil, GrepResult{}, fmt.Errorf("grep: %w", err)
	}
	out := GrepResult{Matches: []GrepMatch{}, Skipped: []File{}, Files: res.Files, Truncated: res.Truncated, TimedOut: res.TimedOut, Warning: res.Warning}
	for _, m := range res.Matches {
		out.Matches = append(out.Matches, GrepMatch{Source: m.Source, Path: m.Path, Line: m.Line, Text: m.Text, Before: m.Before, After: m.After})
	}
	for _, s := range res.Skipped {
		out.Skipped = append(out.Skipped, File{Path: s.Path, Reason: s.Reason})
	}
	return nil, out, nil
}
