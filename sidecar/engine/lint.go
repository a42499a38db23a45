package engine

import (
	"errors"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
)

// Lint is what a check of the generated notes found (compile.Lint).
type Lint = compile.LintResult

// LintDefect is one thing it found.
type LintDefect = compile.Defect

// Lint checks the notes Quire wrote in the generated folder, with no
// model: links that resolve to nothing, pages no source cites, pages that
// name the same thing, missing originals, unreadable frontmatter, index.md
// out of step, pages longer than the model's context. Unless dryRun, it
// writes the report note and review items (each raising a review event);
// it changes nothing else. A folder holding the user's notes is refused
// (Invalid).
func (e *Engine) Lint(dryRun bool) (Lint, error) {
	cfg := e.Config()
	res, err := compile.Lint(compile.LintOptions{
		Vault: e.vault, Folder: cfg.Folder, MaxTokens: cfg.Model.ContextTokens, Write: !dryRun,
		Reviewed: func(r ingest.Reviewed) { e.emit(&IngestEvent{Event: r}) },
	})
	var fe *compile.ForeignError
	if errors.As(err, &fe) {
		return res, errorf(Invalid, "%v", err)
	}
	return res, err
}
