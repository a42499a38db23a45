package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/ingest/worker"
	"github.com/quire-app/quire/sidecar/search"
)

// newWorker makes the ingest worker for opts.Queue: the compiler searches
// this engine's index for related pages, checks links against its catalog,
// reads with the model in force, and every event it raises is passed on.
func (e *Engine) newWorker() *worker.Worker {
	cfg := e.Config()
	return worker.New(worker.Options{
		Queue:      e.opts.Queue,
		Fetch:      e.opts.Fetch,
		Vault:      e.vault,
		Folder:     cfg.Folder,
		FolderFunc: func() string { return e.Config().Folder },
		MaxCalls:   cfg.Ingest.MaxCalls,
		Compile:    e.compileOptions,
		Events:     func(ev ingest.Event) { e.emit(&IngestEvent{Event: ev}) },
		Log:        e.log,
		Inbox:      e.opts.InboxPoll,
		RunLog:     e.runLog(),
		Today:      true,
	})
}

// runLog is the ingest run log's path, "" without a state folder.
func (e *Engine) runLog() string {
	if e.opts.StateDir == "" {
		return ""
	}
	return filepath.Join(e.opts.StateDir, worker.RunLogName)
}

// compileOptions is what the compiler needs from the rest of the engine,
// as of now: the model in force (nil when none), search over the latest
// snapshot, and its catalog for link targets.
func (e *Engine) compileOptions() compile.Options {
	snap := e.snap.Load()
	cfg := e.Config()
	opt := compile.Options{
		Related:      worker.Related(e.relater(false), cfg.Folder),
		LocalRelated: worker.Related(e.relater(true), cfg.Folder),
		Exists:       worker.Exists(e.vault, titles(snap.notes.allOrNone(e.log))),
		MaxCalls:     cfg.Ingest.MaxCalls,
		Consolidate:  cfg.Ingest.Consolidate,
		// The config's default is compile's.
		ConsolidateSources: cfg.Ingest.ConsolidateSources,
		Private:            snap.private,
		// A source note the indexer would skip as too large is no note.
		MaxNoteBytes: cfg.MaxFileBytes,
	}
	if m := e.answerModel(); m != nil {
		opt.Model = m
	}
	return opt
}

// relater is ingest's search for related pages: Related over a text,
// local when it is a private source's.
func (e *Engine) relater(local bool) worker.Relater {
	return func(ctx context.Context, text string, k int, f search.Filter) ([]search.Passage, error) {
		notes, _, err := e.Related(ctx, Related{Text: text, K: k, Exclude: f.Exclude, ExcludeNotes: f.ExcludeNotes, Local: local})
		ps := make([]search.Passage, len(notes))
		for i, n := range notes {
			ps[i] = n.Passage
		}
		return ps, err
	}
}

// RunIngest works the ingest queue until ctx ends: one source at a time,
// and the files dropped into <Folder>/Inbox/. It returns at once when the
// engine has no queue. A note being written when ctx ends is finished
// first.
func (e *Engine) RunIngest(ctx context.Context) error {
	if e.ingest == nil {
		return nil
	}
	return e.ingest.Run(ctx)
}

// AddSource queues a URL or a file to ingest and returns its item and its
// position in the queue.
func (e *Engine) AddSource(source string, resummarise bool) (ingest.Item, int, error) {
	if e.ingest == nil {
		return ingest.Item{}, 0, errorf(NotReady, "this sidecar has no ingest queue")
	}
	src := strings.TrimSpace(source)
	if err := e.folderProblem(); err != nil {
		return ingest.Item{}, 0, errorf(Invalid, "%s: %v", src, err)
	}
	it, pos, err := e.ingest.Add(src, resummarise)
	var dup *ingest.DuplicateError
	switch {
	case err == nil:
		return it, pos, nil
	case errors.As(err, &dup):
		return it, pos, errorf(Duplicate, "%s: %s", src, worker.DuplicateMessage(dup))
	case errors.Is(err, worker.ErrSource), errors.Is(err, ingest.ErrSource):
		return it, pos, errorf(Invalid, "%v", err)
	case errors.Is(err, worker.ErrNotIngested):
		return it, pos, errorf(NotFound, "%s: Quire did not ingest it, so there is nothing to summarise again; ingest it first", src)
	case errors.Is(err, worker.ErrNoModel):
		return it, pos, errorf(ModelUnavailable, "no model is configured to summarise %s", src)
	}
	return it, pos, err
}

// Queue lists the ingest queue; empty without one.
func (e *Engine) Queue() ([]ingest.Item, error) {
	if e.ingest == nil {
		return []ingest.Item{}, nil
	}
	return e.ingest.Queue().List()
}

// Rebuilt is what Reingest did with one source note.
type Rebuilt = worker.Rebuilt

// NoteFormat is the layout version of the notes Quire writes now
// (compile.Format): Reingest rebuilds the source notes of older ones.
const NoteFormat = compile.Format

// Reingest rebuilds the source notes written in an older layout than
// Quire's from their originals (worker.Worker.Reingest): all of them, or
// notes (vault-relative); with dryRun it only says what it would do. Run
// by `quire reingest` in an engine whose queue does not run.
func (e *Engine) Reingest(ctx context.Context, notes []string, dryRun bool, each func(Rebuilt)) ([]Rebuilt, error) {
	if err := e.folderProblem(); err != nil {
		return nil, errorf(Invalid, "%v", err)
	}
	return e.newWorker().Reingest(ctx, notes, dryRun, each)
}

// titles is each indexed note's title by its path.
func titles(entries map[string]index.Entry) map[string]string {
	out := make(map[string]string, len(entries))
	for p, e := range entries {
		out[p] = e.Title
	}
	return out
}
