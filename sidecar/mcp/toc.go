package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/source"
)

type tocIn struct {
	Source string `json:"source,omitempty" jsonschema:"the source's id, as search results and grep give it; vault (the default) is the Obsidian vault"`
}

func addTOC(s *sdk.Server, t *tools) {
	sdk.AddTool(s, &sdk.Tool{Name: "toc", Annotations: readOnly("Table of contents"),
		Description: "The table of contents of one source of notes (the vault, or a git repository or folder configured beside it): " +
			"its folders, each note's path, title and tags, and the note's headings with their depth. Use it to see what a source " +
			"covers and where, then get_note with a note's path and source to read it."},
		t.toc)
}

func (t *tools) toc(ctx context.Context, _ *sdk.CallToolRequest, in tocIn) (*sdk.CallToolResult, engine.TOC, error) {
	id := in.Source
	if id == "" {
		id = source.Vault
	}
	if id != source.Vault {
		if err := source.CheckID(id); err != nil {
			return nil, engine.TOC{}, argError("source: %v", err)
		}
	}
	toc, err := t.b.TOC(ctx, id, true)
	if err != nil {
		return nil, engine.TOC{}, fmt.Errorf("toc %s: %w", id, err)
	}
	return nil, toc, nil
}
