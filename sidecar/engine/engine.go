// Package engine holds one open vault: its index and the watch that keeps
// it current, embedding, search, related passages, ask and saved answers,
// the ingest queue and its worker, status, and settings changed while it
// runs. The websocket server, the CLI and the MCP tools are thin front
// ends over it, so that nothing is assembled twice; it speaks in domain
// types and reports progress and events as typed values, never as text.
package engine

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/ingest/fetch"
	"github.com/quire-app/quire/sidecar/ingest/worker"
	"github.com/quire-app/quire/sidecar/rerank"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/state"
	"github.com/quire-app/quire/sidecar/vault"
)

// DefaultDebounce is how long the watch waits for a burst of file events
// to end before indexing, when Options.Debounce is 0.
const DefaultDebounce = 200 * time.Millisecond

// Options configure an Engine made with [New]. Index is required; every
// other field has a default.
type Options struct {
	// Index is the open index. The engine does not close it: [Open] makes
	// an engine that does.
	Index *index.Index
	// Config is the configuration in force; SetSettings changes it.
	Config config.Config
	// StateDir is the state folder whose config.yaml keeps what
	// SetSettings changes; empty keeps changes in memory only.
	StateDir string
	// AskLog is the file each question is logged to (<state>/asks.jsonl);
	// empty logs nothing.
	AskLog string
	// Queue is the open ingest queue; nil means AddSource is refused with
	// ErrNotReady. With one, RunIngest works it.
	Queue *ingest.Queue
	// Fetch downloads pages for ingest through the guard; nil fetches with
	// the guard's defaults.
	Fetch *fetch.Client
	// InboxPoll is how often <Folder>/Inbox/ is looked at for dropped
	// files: 0 means worker.DefaultInboxPoll, negative never.
	InboxPoll time.Duration
	// Debounce is how long Watch waits for a burst of file events to end.
	Debounce time.Duration
	// Log receives the engine's log; nil discards it.
	Log *slog.Logger
	// Now is today for questions about time ("last week"); nil: the clock.
	Now func() time.Time
}

// Engine is one open vault. Its methods are safe for concurrent use.
type Engine struct {
	outlines outlines // headings of notes read to name passages (heading.go)

	vault string // absolute
	opts  Options
	ix    *index.Index
	log   *slog.Logger
	close func() error // what Open opened, closed by Close

	// Set by Open.
	st   *state.Dir
	warn func(string)

	snap       atomic.Pointer[snapshot]
	floor      *search.Floor // the vault's dense floor, shared by every snapshot's searcher
	floorOnce  sync.Once
	indexing   atomic.Bool
	rebuilding atomic.Bool // a rebuild is asked for or running
	trigger    chan struct{}
	pendMu     sync.Mutex      // guards pendAll and pend
	pendAll    bool            // the next pass walks the whole vault
	pend       map[string]bool // else these paths (see Index.RunPaths)
	passMu     sync.Mutex      // one pass (Watch's or Reindex's) at a time

	cfgMu sync.RWMutex  // guards cfg, model and folderErr, which SetSettings replaces
	cfg   config.Config // the configuration in force
	model ask.Model     // nil: answers are extracted
	// folderErr is why cfg.Folder may not be written to (it holds the
	// user's notes, or is a file), found by Open: nothing is written
	// there until the settings name another folder.
	folderErr error

	ingest *worker.Worker // nil without Options.Queue

	ids   atomic.Int64 // numbers subscriptions and followers
	subMu sync.Mutex
	subs  map[int]func(Event)

	progMu sync.Mutex
	progs  map[int]func(index.Progress) // per-call progress (Reindex)

	// Vectors are computed beside the index passes, never inside one, so
	// an edit is searchable by keywords while a long embedding runs.
	embedMu      sync.Mutex
	embedRunning bool // an embedding goroutine is running
	embedAgain   bool // a pass finished while it ran: go round once more
	embedDone    sync.WaitGroup
	// embedding is the last progress of the embedding running now, nil
	// when none runs: what Status says of it.
	embedding atomic.Pointer[Progress]

	syncs sourceSyncs // source syncs asked of Watch (onquery.go)
}

// New returns an engine over opts.Index. It reads the catalog once, so
// that requests are answered from what the index already holds before
// the first pass ends.
func New(opts Options) (*Engine, error) {
	if opts.Index == nil {
		return nil, errors.New("engine: no index")
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Config.Search.K <= 0 {
		opts.Config = config.Default()
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	vault, err := filepath.Abs(opts.Index.Vault)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e := &Engine{
		vault:   vault,
		opts:    opts,
		ix:      opts.Index,
		log:     opts.Log,
		trigger: make(chan struct{}, 1),
		pend:    map[string]bool{},
		cfg:     opts.Config,
		model:   ask.ModelFor(opts.Config.Model),
		subs:    map[int]func(Event){},
		progs:   map[int]func(index.Progress){},
	}
	if opts.Index.BM25 != nil {
		// Once per engine: every snapshot's searcher shares the index.
		opts.Index.BM25.SetFieldWeights(search.FieldWeights(opts.Config.Search))
	}
	snap, err := e.load(false)
	if err != nil {
		return nil, err
	}
	e.snap.Store(snap)
	e.ix.OnProgress = e.progress
	if opts.Queue != nil {
		if e.opts.Fetch == nil {
			e.opts.Fetch = fetch.New(fetch.Options{MaxBytes: opts.Config.Ingest.MaxBytes})
		}
		e.ingest = e.newWorker()
	}
	return e, nil
}

// Close closes what [Open] opened; after [New], it only detaches from the
// index. Watch and RunIngest must have returned.
func (e *Engine) Close() error {
	e.embedDone.Wait()
	e.ix.OnProgress = nil
	if e.close != nil {
		return e.close()
	}
	return nil
}

// Vault returns the vault's absolute path.
func (e *Engine) Vault() string { return e.vault }

// Index returns the open index, for benchmarks and tools that measure it.
func (e *Engine) Index() *index.Index { return e.ix }

// Searcher returns the searcher of the last pass, for tools that study
// ranking (internal/fitrerank).
func (e *Engine) Searcher() *search.Searcher { return e.snap.Load().searcher }

// snapshot is the catalog as of the last index pass. Requests read it
// instead of the catalog, which costs a full read per call.
type snapshot struct {
	notes    *notes
	meta     index.Meta
	searcher *search.Searcher
	// passed is true once a pass finished since the engine started:
	// before that, search results may miss notes not yet indexed.
	passed bool
	// dense counts passages with vectors, when an embedder is enabled.
	dense index.DenseStats
	// private holds the notes under config private and the marked ones.
	private vault.Private
}

// load makes a new snapshot of the catalog: the one place a searcher is
// assembled. What the searcher asks of every note (the languages, the
// private marks, whether any note is superseded) comes from the
// catalog's tally and marked notes; what it asks of one note, from that
// note's entry; so a one-shot search reads the records of its candidates
// only (see notes).
func (e *Engine) load(passed bool) (*snapshot, error) {
	meta, err := e.ix.Meta()
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	notes, err := newNotes(e.ix)
	if err != nil {
		return nil, err
	}
	tally, marks := e.ix.Tally()
	delete(tally.Langs, "")
	var marked []string
	superseded := false
	for p, en := range marks {
		if en.Private {
			marked = append(marked, p)
		}
		superseded = superseded || en.Superseded && en.SupersededBy != ""
	}
	snap := &snapshot{
		notes:    notes,
		meta:     meta,
		searcher: search.New(e.ix.BM25, index.ByCount(tally.Langs), e.Config().Search),
		passed:   passed,
		private:  e.Config().PrivateNotes().WithMarked(marked),
	}
	if superseded {
		next := sync.OnceValue(func() map[string]string { return index.Successions(notes.allOrNone(e.log)).Next })
		snap.searcher.Successors = func(p string) (string, bool) {
			if en := marks[p]; !en.Superseded {
				return "", false
			}
			s, ok := next()[p]
			return s, ok
		}
	}
	snap.searcher.Now = e.opts.Now
	snap.searcher.DateOf = func(p string) (time.Time, time.Time) {
		en, _ := notes.entry(p)
		return unixOrZero(en.Updated), unixOrZero(en.Dated)
	}
	snap.searcher.Private = func(p string) bool { return snap.private.Holds(p) }
	snap.searcher.Hubs = sync.OnceValue(func() []string {
		all := notes.allOrNone(e.log)
		hubs := make([]search.HubNote, 0, len(all))
		for p, en := range all {
			hubs = append(hubs, search.HubNote{Path: p, LinkLines: en.LinkLines, Lines: en.Lines})
		}
		return search.RankHubs(hubs)
	})
	snap.searcher.Hub = func(p string) bool {
		en, ok := notes.entry(p)
		return ok && search.IsHub(p, en.LinkLines, en.Lines)
	}
	if rc := e.Config().Rerank; rc.Provider != "" {
		if c, err := rerank.New(rc, nil); err == nil {
			snap.searcher.Endpoint = c
		}
	}
	if e.ix.Dense() {
		// The vectors' coverage from the tally and the store when they
		// settle it (every passage embedded), so that a one-shot hybrid
		// search reads its candidates' records only; else counted.
		var ok bool
		if snap.dense, ok = e.ix.DenseCount(tally.Chunks); !ok || notes.eager {
			all, err := notes.all()
			if err != nil {
				return nil, fmt.Errorf("read catalog: %w", err)
			}
			snap.dense = e.ix.DenseStatsOf(all)
		}
		snap.searcher.Dense = e.ix
		snap.searcher.Floor = e.denseFloor()
		snap.searcher.Embedded = func(p string) bool {
			en, _ := notes.entry(p)
			return e.ix.Embedded(p, en.Chunks)
		}
	}
	return snap, nil
}

// denseFloor is the engine's one search.Floor, made on first use: it
// measures again only when the vectors have changed by a tenth.
func (e *Engine) denseFloor() *search.Floor {
	e.floorOnce.Do(func() {
		e.floor = &search.Floor{Vectors: func() int {
			if s := e.snap.Load(); s != nil {
				return s.dense.Vectors
			}
			return 0
		}}
	})
	return e.floor
}

// refresh replaces the snapshot after the index changed.
func (e *Engine) refresh(passed bool) error {
	snap, err := e.load(passed || e.snap.Load().passed)
	if err != nil {
		return err
	}
	e.snap.Store(snap)
	return nil
}

// Config returns the configuration in force.
func (e *Engine) Config() config.Config {
	e.cfgMu.RLock()
	defer e.cfgMu.RUnlock()
	return e.cfg
}

// answerModel returns the language model in force; nil when none.
func (e *Engine) answerModel() ask.Model {
	e.cfgMu.RLock()
	defer e.cfgMu.RUnlock()
	return e.model
}

// answersFolder is where saved answers go, and what ask leaves out of
// its sources: an answer must not cite an earlier answer.
func (e *Engine) answersFolder() string { return e.Config().Folder + "/Answers" }

// folderProblem is why the generated folder may not be written to, or nil.
func (e *Engine) folderProblem() error {
	e.cfgMu.RLock()
	defer e.cfgMu.RUnlock()
	return e.folderErr
}

// checkFolder refuses a generated folder that is a file or holds notes
// Quire did not write, naming them.
func checkFolder(vaultDir, folder string) error {
	err := config.CheckFolder(vaultDir, folder)
	if err == nil {
		err = compile.CheckOwned(vaultDir, folder)
	}
	if err != nil {
		return fmt.Errorf("folder: %w; Quire writes nothing until the settings or config.yaml name another", err)
	}
	return nil
}

func unixOrZero(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0)
}
