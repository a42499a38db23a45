package engine

import (
	"context"
	"path"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

// MaxQuestion caps a question's length in bytes.
const MaxQuestion = 4096

// Question is a question to answer from the notes.
type Question struct {
	Text string
	// K is how many passages to retrieve before packing the model's
	// context; 0 is the default.
	K int
	// Channel is "" for the best the index serves.
	Channel search.Channel
	// History is the conversation so far, oldest first, when Text is a
	// follow-up; see ask.Query.History.
	History []ask.Turn
	// Scope narrows the sources to a folder and a tag, before the cut to
	// K; the zero value asks the whole vault.
	Scope search.Filter
	// Aside, when set, runs each model call (the answer, a rewrite): the
	// server gives up its turn of the CPU bound while the model works
	// and takes one again after. An error ends the call with it.
	Aside func(ctx context.Context, call func()) error
	// MCP says the answer goes to an MCP client: it is made without
	// private notes (Query.MCP).
	MCP bool
	// Selection, when set, is text selected in a note: the answer's first
	// source (ask.Query.Selection).
	Selection *Selection
}

// MaxSelection caps a selection's length in bytes: a few pages, which is
// as much as a model's context takes beside the vault's passages.
const MaxSelection = 32 << 10

// Selection is text selected in a note.
type Selection struct {
	Path  string // vault-relative
	Text  string
	Start int // byte offset in the note
}

// passage is the selection as a source: a passage of its note, which a
// private note's rules hold like any other.
func (e *Engine) selectionPassage(s *Selection) (*search.Passage, error) {
	if s == nil {
		return nil, nil
	}
	text := strings.TrimSpace(s.Text)
	if text == "" || len(text) > MaxSelection {
		return nil, errorf(Invalid, "a selection of 1 to %d bytes is required", MaxSelection)
	}
	p := path.Clean(strings.TrimPrefix(s.Path, "/"))
	if p == "." || strings.HasPrefix(p, "../") || p == ".." || !vault.IsFile(p) {
		return nil, errorf(Invalid, "selection: %q is no note of the vault", s.Path)
	}
	title := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if entries, err := e.ix.Entries(); err == nil && entries[p].Title != "" {
		title = entries[p].Title
	}
	start := max(s.Start, 0) + strings.Index(s.Text, text)
	return &search.Passage{ID: p + "#selection", Path: p, Title: title, Headings: []string{}, Start: start, End: start + len(text), Text: text}, nil
}

// asideModel runs its model's calls through a Question's Aside.
type asideModel struct {
	ask.Model
	aside func(ctx context.Context, call func()) error
}

func (m asideModel) Stream(ctx context.Context, msgs []llm.Message, opts llm.Options, onDelta func(string)) (rep llm.Reply, err error) {
	if aerr := m.aside(ctx, func() { rep, err = m.Model.Stream(ctx, msgs, opts, onDelta) }); aerr != nil && err == nil {
		err = aerr
	}
	return rep, err
}

// Ask answers q from the notes with the model in force (or extracted
// sentences without one), calling onDelta as the answer streams. The
// returned answer is checked and replaces what streamed. Saved answers
// are never among the sources: an answer must not cite an earlier answer.
func (e *Engine) Ask(ctx context.Context, q Question, onDelta func(string)) (ask.Answer, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" || len(text) > MaxQuestion {
		return ask.Answer{}, errorf(Invalid, "a question of 1 to %d bytes is required", MaxQuestion)
	}
	e.fetchOnQuery(ctx, onQueryWait)
	snap := e.snap.Load()
	ch := q.Channel
	if ch == "" {
		ch = search.Default(snap.dense.Embedded)
	}
	cfg := e.Config()
	model := e.answerModel()
	if model != nil && q.Aside != nil {
		model = asideModel{model, q.Aside}
	}
	asker := &ask.Asker{Search: snap.searcher, Channel: ch, K: q.K, Model: model, Private: snap.private,
		Answers: e.answersFolder(), Withhold: e.withholds(q.MCP), Rewrite: cfg.Ask.Rewrite, Langs: snap.searcher.Langs, Log: e.opts.AskLog}
	sel, err := e.selectionPassage(q.Selection)
	if err != nil {
		return ask.Answer{}, err
	}
	return asker.Ask(ctx, ask.Query{Question: text, History: q.History, Scope: q.Scope, Selection: sel}, onDelta)
}

// SaveAnswer writes an answer to <folder>/Answers/ as a new note and
// returns its vault-relative path; one built from private notes is marked
// private and quotes none of them.
func (e *Engine) SaveAnswer(ans ask.Answer) (string, error) {
	if err := e.folderProblem(); err != nil {
		return "", errorf(Invalid, "answer.save: %v", err)
	}
	// Quire's own record that the folder is its, before the first note
	// it writes there: a saved answer alone proves nothing.
	if err := compile.Adopt(e.vault, e.Config().Folder); err != nil {
		return "", errorf(Invalid, "answer.save: %v", err)
	}
	return ask.SaveNote(e.vault, e.answersFolder(), ans, time.Now(), e.snap.Load().private)
}
