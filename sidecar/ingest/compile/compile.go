// Package compile turns one extracted source into notes in the vault: a
// source note (summary, key ideas, glossary, quotes, connections), concept
// and entity pages created or extended, review items for what it will not
// decide alone, and the Quire/index.md and Quire/log.md entries. With a
// model it reads the source in chunks and plans the note; without one it
// writes the clean text, marked as not summarised. Every claim the model
// makes is checked against the source before it is written, and nothing
// outside the generated folder is ever touched.
package compile

import (
	"context"
	"errors"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/llm"
)

// Model answers a chat; *llm.Client is one. JSON output is asked for with
// llm.Options.
type Model interface {
	Stream(ctx context.Context, msgs []llm.Message, opts llm.Options, onDelta func(string)) (llm.Reply, error)
	Config() llm.Config
}

// Page is an existing vault page that search found related to the source.
type Page struct {
	Path    string  // vault-relative note path
	Title   string  // the note's title
	Heading string  // heading path of the best passage, " > " joined
	Snippet string  // the best passage's text, short
	Score   float64 // search score, higher is closer
}

// Source is one extracted source ready to compile.
type Source struct {
	Doc      *extract.Doc // the extracted text and metadata
	Origin   string       // the URL or file as given (frontmatter "source")
	Raw      string       // vault-relative path of the saved original, "" if none
	Hash     string       // extract.TextHash(Doc) (frontmatter "content_hash")
	Captured time.Time    // when it was captured (frontmatter "captured")
}

// Options say where and how to compile.
type Options struct {
	// Vault is the vault's folder; Folder is the generated folder inside it
	// ("Quire"). Writes go only under Folder.
	Vault, Folder string
	// Model reads and plans; nil writes the unsummarised note.
	Model Model
	// Related finds existing pages for a query (the search channel); nil
	// means no connections.
	Related func(ctx context.Context, query string, k int) ([]Page, error)
	// Exists reports whether a vault-relative note path (or a page title a
	// wikilink may name) is a page the vault has; links to anything else
	// are dropped.
	Exists func(target string) bool
	// MaxCalls caps model calls for this source (reading and planning).
	MaxCalls int
	// Progress reports the step and, for reading, chunk i of n.
	Progress func(step proto.IngestStep, i, n int)
	// Written is told of every note written, as it is written.
	Written func(proto.NoteWritten)
	// Reviewed is told of every review item written.
	Reviewed func(proto.ReviewCreated)
}

// Result is what Compile wrote.
type Result struct {
	Note       string          // the source note, vault-relative
	Title      string          // its title
	Written    []string        // every note created or extended, Note first
	Review     []string        // review items created
	Dropped    []proto.Dropped // what the trust checks removed
	Summarised bool            // false when no model read the source
	Unread     float64         // share of the source not read (call cap)
}

// ErrNotBuilt is returned until the compiler lands.
var ErrNotBuilt = errors.New("compile: not built yet")

// Compile writes the notes for src. It is safe to run again for the same
// source after a crash: the source note is written last, atomically, and
// a rerun overwrites nothing the user wrote.
func Compile(ctx context.Context, src Source, opt Options) (Result, error) {
	return Result{}, ErrNotBuilt
}
