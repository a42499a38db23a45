// Package mcp serves a vault's index to Model Context Protocol clients
// (Claude Code, Claude Desktop, automation tools) with the official Go SDK:
// status, reindex, search_knowledge, search_sources, get_note, ask and
// grep.
//
// The tools read the vault through a [Backend]: the engine of this
// process, or a client of the sidecar that already serves the vault (it
// holds the index's lock, so nobody else may open it). Both answer the
// same tools the same way; the tools themselves check their
// arguments, so a bad one gets a tool error with a sentence saying what to
// fix, and the server keeps serving.
package mcp

import (
	"context"
	"errors"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/grep"
	"github.com/quire-app/quire/sidecar/search"
)

// Backend is the vault the tools read: an [engine.Engine] in this
// process, or a [client.Remote] through the sidecar that serves the vault.
// Its methods are safe for concurrent use. Errors meant for the user are
// *engine.Error (a note the index does not hold is engine.NotFound).
type Backend interface {
	// Status describes the index now.
	Status(ctx context.Context) (engine.Status, error)
	// Reindex brings the index up to date with the vault; full re-reads
	// every note instead of only the changed ones. progress follows it.
	Reindex(ctx context.Context, full bool, progress func(engine.Progress)) (engine.Reindexed, error)
	// Search ranks passages.
	Search(ctx context.Context, q engine.Query) (search.Result, error)
	// Note returns the text of the note at a clean vault-relative path;
	// mcp true, as the tools ask, refuses a private note (engine.Note).
	Note(ctx context.Context, path string, mcp bool) (string, error)
	// Ask answers a question from the notes; onDelta may be nil.
	Ask(ctx context.Context, q engine.Question, onDelta func(string)) (ask.Answer, error)
	// Grep finds the lines of the current files that hold a string;
	// mcp true, as the tool asks, leaves private notes out (engine.Grep).
	Grep(ctx context.Context, o grep.Options, mcp bool) (grep.Result, error)
	// TOC is a source's table of contents; mcp true, as the tool asks,
	// leaves private notes out (engine.TOC).
	TOC(ctx context.Context, id string, mcp bool) (engine.TOC, error)
}

// via says who answered: a backend may name itself (the running sidecar
// and its pid); otherwise it is this process.
func via(b Backend) string {
	if v, ok := b.(interface{ Via() string }); ok {
		return v.Via()
	}
	return "this process"
}

// notIndexed reports an error that says the index does not hold a note.
func notIndexed(err error) bool {
	var ee *engine.Error
	return errors.As(err, &ee) && ee.Kind == engine.NotFound
}

// Status is what the status tool returns.
type Status struct {
	Vault       string         `json:"vault" jsonschema:"the vault folder"`
	Via         string         `json:"via" jsonschema:"who answered: this process, or the running sidecar and its pid"`
	Notes       int            `json:"notes" jsonschema:"notes in the index"`
	Chunks      int            `json:"chunks" jsonschema:"passages (chunks) in the index"`
	Vectors     *Vectors       `json:"vectors,omitempty" jsonschema:"search by meaning: passages with vectors; absent when no embedder is enabled"`
	LastIndexed string         `json:"lastIndexed,omitempty" jsonschema:"when the last index pass finished (RFC 3339); absent before the first"`
	Fingerprint string         `json:"fingerprint" jsonschema:"the chunking parameters the index was built with"`
	Indexing    bool           `json:"indexing" jsonschema:"true while an index pass runs"`
	Languages   map[string]int `json:"languages" jsonschema:"notes per language code"`
	Skipped     []File         `json:"skipped" jsonschema:"Markdown files left out of the index, with why"`
	Warnings    []File         `json:"warnings" jsonschema:"notes indexed despite a problem, with what it is"`
}

// Vectors is the coverage of search by meaning.
type Vectors struct {
	Embedder string  `json:"embedder" jsonschema:"the embedding model"`
	Embedded int     `json:"embedded" jsonschema:"passages with vectors"`
	Total    int     `json:"total" jsonschema:"passages that should have vectors"`
	Coverage float64 `json:"coverage" jsonschema:"embedded/total, from 0 to 1"`
	// PerSecond and SecondsLeft are present while passages are embedded.
	PerSecond   float64 `json:"perSecond,omitempty" jsonschema:"while passages are being embedded: how many this run embeds per second"`
	SecondsLeft float64 `json:"secondsLeft,omitempty" jsonschema:"while passages are being embedded: an estimate of the seconds until every passage has a vector, at the measured rate"`
}

func newVectors(embedder string, done, total int) *Vectors {
	if embedder == "" {
		return nil
	}
	v := &Vectors{Embedder: embedder, Embedded: done, Total: total, Coverage: 1}
	if total > 0 {
		v.Coverage = float64(done) / float64(total)
	}
	return v
}

// File is a vault file with a reason: why it was skipped, or what is wrong
// with it.
type File struct {
	Path   string `json:"path" jsonschema:"vault-relative path"`
	Reason string `json:"reason"`
}

// Reindexed is what the reindex tool returns.
type Reindexed struct {
	Full     bool     `json:"full" jsonschema:"true when every note was re-read"`
	Notes    int      `json:"notes" jsonschema:"notes in the index after the pass"`
	Chunks   int      `json:"chunks" jsonschema:"passages in the index after the pass"`
	Changed  int      `json:"changed" jsonschema:"notes (re-)read in this pass"`
	Removed  int      `json:"removed" jsonschema:"notes removed from the index in this pass"`
	Skipped  []File   `json:"skipped" jsonschema:"files left out, with why"`
	Warnings []File   `json:"warnings" jsonschema:"notes indexed despite a problem"`
	Vectors  *Vectors `json:"vectors,omitempty" jsonschema:"search by meaning after the pass"`
	TookMs   float64  `json:"tookMs" jsonschema:"how long the pass took, in milliseconds"`
	Note     string   `json:"note,omitempty" jsonschema:"anything the counts do not say"`
}

// Passage is a slice of a note: its raw Markdown between two byte offsets.
type Passage struct {
	Source   string   `json:"source" jsonschema:"the id of the source the note is in: vault for the Obsidian vault, else a git repository or folder configured beside it"`
	Path     string   `json:"path" jsonschema:"the note's path inside its source; pass it with source to get_note for the whole note"`
	Title    string   `json:"title" jsonschema:"the note's title"`
	Headings []string `json:"headingPath" jsonschema:"headings above the passage, outermost first"`
	Text     string   `json:"text" jsonschema:"the passage's Markdown, as written in the note"`
	Score    float64  `json:"score" jsonschema:"relevance within this result only, higher is better"`
	Start    int      `json:"start" jsonschema:"byte offset of the passage in the note file"`
	End      int      `json:"end" jsonschema:"byte offset just past the passage"`
	Page     int      `json:"page,omitempty" jsonschema:"for a PDF (path ending in .pdf): the page the passage starts on; start and end are then offsets in the text read from it"`
}

// Answer is what the ask tool returns.
type Answer struct {
	Answer           string     `json:"answer" jsonschema:"the answer in Markdown with [n] after each claim (n is a citation number), or the refusal, or quoted sentences when extracted"`
	Lang             string     `json:"lang" jsonschema:"the question's language code, which the answer is in"`
	Grounded         bool       `json:"grounded" jsonschema:"true when every citation names a passage that was retrieved, and there is at least one"`
	Refused          bool       `json:"refused" jsonschema:"true when the notes do not hold the answer; answer then says so"`
	Extracted        bool       `json:"extracted" jsonschema:"true when no model answered (none configured, or it failed): answer holds sentences quoted from the notes"`
	Citations        []Citation `json:"citations" jsonschema:"the passages the answer cites, checked"`
	Quotes           []Quote    `json:"quotes" jsonschema:"quotations in the answer and whether each was found in a cited passage"`
	DroppedCitations int        `json:"droppedCitations" jsonschema:"invented citations removed from the model's answer"`
	Channel          string     `json:"channel" jsonschema:"the retrieval used"`
	Model            string     `json:"model,omitempty" jsonschema:"provider/model that answered; absent when extracted"`
	Remote           bool       `json:"remote" jsonschema:"true when passages were sent to a model not on this machine"`
	Warning          string     `json:"warning,omitempty" jsonschema:"why the answer is degraded (no model, model down, keyword results only)"`
}

// Citation is a passage an answer cites.
type Citation struct {
	Number   int      `json:"number" jsonschema:"what the answer cites it by: [number]"`
	Source   string   `json:"source" jsonschema:"the id of the source the note is in (vault for the vault)"`
	Path     string   `json:"path" jsonschema:"the note's path inside its source"`
	Title    string   `json:"title"`
	Headings []string `json:"headingPath" jsonschema:"headings above the passage, outermost first"`
	Text     string   `json:"text" jsonschema:"the passage's Markdown"`
	Start    int      `json:"start" jsonschema:"byte offset in the note file"`
	End      int      `json:"end" jsonschema:"byte offset just past the passage"`
	Page     int      `json:"page,omitempty" jsonschema:"for a PDF: the page the passage starts on"`
}

// Quote is a quotation in an answer.
type Quote struct {
	Number   int    `json:"number" jsonschema:"the citation it belongs to; 0 if none"`
	Text     string `json:"text"`
	Verified bool   `json:"verified" jsonschema:"true when the text occurs in a cited passage"`
}

// Options configure NewServer.
type Options struct {
	// Version is reported to clients as the server's version.
	Version string
	// Log receives the SDK's log; nil discards it.
	Log *slog.Logger
}

// instructions tell the client's model what the server is for.
const instructions = `Quire searches and answers from the user's Obsidian vault (their own Markdown notes).
Use search_knowledge to find passages, search_sources to see which notes mention a concept,
get_note to read a whole note by the path a search returned, ask for a cited answer, and grep
to find exact text (a host name, a number, an identifier, a phrase) in the notes as they are now.
Every passage carries its note path and heading path: cite them when you use a passage.`

// NewServer returns an MCP server whose tools read b. Run it on a
// transport (stdio) or serve it with [NewHTTPHandler].
func NewServer(b Backend, opts Options) *sdk.Server {
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "quire", Title: "Quire (Obsidian vault)", Version: version},
		&sdk.ServerOptions{Instructions: instructions, Logger: opts.Log, Capabilities: &sdk.ServerCapabilities{}})
	addTools(s, &tools{b: b})
	return s
}
