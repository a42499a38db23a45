// Package worker runs the ingest queue: it takes one source at a time from
// the durable queue (ingest.Queue), fetches it through the guard or reads
// the file, extracts it, refuses it before any model call when its text is
// already in the queue, keeps the original under <Folder>/raw and a PDF's
// figures under <Folder>/attachments/<slug>/, and hands it to the compiler,
// which writes the notes. It also watches <Folder>/Inbox/ for dropped files.
//
// The worker tells its caller what happens through one event sink, with the
// payloads of proto/ingest.go: ingest.progress, ingest.done, ingest.failed,
// note.written and review.created. The sidecar broadcasts them; the CLI
// prints them.
//
// Stopping: cancelling Run's context stops reading at once, but a note that
// is being written is finished first (the compiler's context is not
// cancelled once it reports the writing step), and the interrupted item goes
// back to the queue with no attempt counted. A process killed outright
// leaves its item running; the next ingest.OpenQueue puts it back.
package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/ingest/fetch"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/vault"
)

// DefaultInboxPoll is how often the inbox is looked at. A file is queued
// once two looks in a row find it the same size and time, so a download or
// a copy still in progress is left alone.
const DefaultInboxPoll = 2 * time.Second

// MaxFileBytes caps a file given by path when Options.MaxBytes is 0, the
// same default as the fetch guard's body cap.
const MaxFileBytes = 32 << 20

// Kinds of file the worker reads, by extension: what the extractor knows.
var fileTypes = map[string]bool{".pdf": true, ".html": true, ".htm": true, ".xhtml": true,
	".md": true, ".markdown": true, ".txt": true, ".text": true}

// ErrSource is wrapped by Add's errors about a source that cannot be
// ingested at all (not an http(s) URL, a relative path, a missing file, an
// unsupported type); the message says which.
var ErrSource = errors.New("cannot ingest")

// ErrNoModel is returned by Add for a resummarise when no model is set.
var ErrNoModel = errors.New("no model configured")

// ErrNotIngested is a resummarise of a source the queue has no finished
// item for: Quire summarises again only what it ingested itself.
var ErrNotIngested = errors.New("not ingested by Quire")

// Options configure a Worker. Queue, Fetch and Vault are required.
type Options struct {
	Queue *ingest.Queue
	Fetch *fetch.Client
	// Vault is the vault's folder; Folder the generated folder in it
	// ("Quire" when empty).
	Vault, Folder string
	// FolderFunc, when set, is asked for the generated folder instead of
	// Folder, once per item and per look at the inbox: the sidecar's
	// settings can change it while it runs.
	FolderFunc func() string
	// MaxCalls caps model calls per source (config ingest.max_calls).
	MaxCalls int
	// MaxBytes caps a file read from disk; 0 means MaxFileBytes.
	MaxBytes int64
	// Compile returns the compiler's options that depend on the rest of
	// the sidecar: Model, Related and Exists. It is called once per item,
	// so each item sees the index as it is then. Nil means no model, no
	// connections and no link targets.
	Compile func() compile.Options
	// Events receives every event; nil drops them. It must not block for
	// long: the worker waits for it.
	Events func(ingest.Event)
	// Log receives warnings; nil discards them.
	Log *slog.Logger
	// Inbox is how often <Folder>/Inbox/ is looked at: 0 means
	// DefaultInboxPoll, negative not at all.
	Inbox time.Duration
	// RunLog is the file each item and each rebuilt note is logged to
	// (<state>/runs.jsonl, Run); "" logs nothing.
	RunLog string
	// Today keeps the daily view (compile.WriteToday) in the generated
	// folder: regenerated when a source is queued and when one is
	// finished, not when Run starts (a sidecar started changes no note).
	Today bool
}

// Worker runs the queue. Add is safe to call while Run runs.
type Worker struct {
	opts Options
	wake chan struct{}
	runs *runLog
	// compile is compile.Compile; tests replace it.
	compile func(context.Context, compile.Source, compile.Options) (compile.Result, error)

	mu    sync.Mutex
	again map[uint64]string   // resummarised items: id → saved original ("" to fetch again)
	inbox map[string]seenFile // inbox files by absolute path
	// foreign is the last folder the inbox was not read in because it
	// holds the user's files, so that is logged once.
	foreign string
}

// New returns a Worker for opts.
func New(opts Options) *Worker {
	if opts.Folder == "" {
		opts.Folder = "Quire"
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = MaxFileBytes
	}
	if opts.Inbox == 0 {
		opts.Inbox = DefaultInboxPoll
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Worker{
		opts:    opts,
		wake:    make(chan struct{}, 1),
		runs:    &runLog{path: opts.RunLog},
		compile: compile.Compile,
		again:   map[uint64]string{},
		inbox:   map[string]seenFile{},
	}
}

// Queue returns the worker's queue.
func (w *Worker) Queue() *ingest.Queue { return w.opts.Queue }

// Add puts a source in the queue and returns its item and how many items
// are ahead of it. A source must be an http or https URL, or the absolute
// path of an existing PDF, HTML, Markdown or text file; anything else wraps
// ErrSource. A source already queued or ingested is refused with an
// *ingest.DuplicateError and nothing is fetched.
//
// A source whose earlier item failed (the site was down, the model did
// not answer) is not a duplicate: that item is queued again.
//
// With resummarise, a source ingested earlier (typically without a model)
// is read again with the model, from its saved original when the note names
// one; that needs a model (ErrNoModel otherwise).
func (w *Worker) Add(source string, resummarise bool) (ingest.Item, int, error) {
	return w.add(source, resummarise, true)
}

func (w *Worker) add(source string, resummarise, retry bool) (ingest.Item, int, error) {
	source = strings.TrimSpace(source)
	if err := CheckSource(source); err != nil {
		return ingest.Item{}, 0, err
	}
	if resummarise && w.compileOptions().Model == nil {
		return ingest.Item{}, 0, fmt.Errorf("resummarise %s: %w", source, ErrNoModel)
	}
	q := w.opts.Queue
	if resummarise {
		// By the queue's record, never by a note's word: a note naming
		// any file would otherwise have Quire read it to the model.
		old, ok, err := q.Find(source)
		if err != nil {
			return ingest.Item{}, 0, err
		}
		if !ok || old.State != ingest.StateDone && old.State != ingest.StateFailed {
			return ingest.Item{}, 0, fmt.Errorf("resummarise %s: %w", source, ErrNotIngested)
		}
	}
	it, err := q.Add(source)
	var dup *ingest.DuplicateError
	if resummarise && errors.As(err, &dup) && (dup.Existing.State == ingest.StateDone || dup.Existing.State == ingest.StateFailed) {
		original := w.savedOriginal(dup.Existing.Result)
		if err := q.Remove(dup.Existing.ID); err != nil {
			return ingest.Item{}, 0, err
		}
		if it, err = q.Add(source); err == nil {
			w.mu.Lock()
			w.again[it.ID] = original
			w.mu.Unlock()
		}
	}
	if retry && !resummarise && errors.As(err, &dup) && dup.By != "text" && dup.Existing.State == ingest.StateFailed {
		if err = q.Retry(dup.Existing.ID); err == nil {
			it, err = q.Get(dup.Existing.ID)
		}
	}
	if !resummarise && errors.As(err, &dup) && dup.By != "text" && (dup.Existing.State == ingest.StateQueued || dup.Existing.State == ingest.StateRunning) {
		// The same source asked for again while its item waits: the
		// caller follows that item instead of being refused. The queue
		// file is held by this process alone, so an item a killed process
		// left behind was put back by OpenQueue and this worker runs it
		// (a `quire ingest` killed mid-item resumes on its next run).
		it, err = dup.Existing, nil
	}
	if err != nil {
		return ingest.Item{}, 0, err
	}
	w.emit(ingest.Progress{ID: it.ID, Source: it.Source, Step: ingest.StepQueued})
	w.kick()
	pos, err := w.position(it.ID)
	// After the position: the view's write gave a worker time to claim
	// the item first, and the position counted it as running ahead.
	w.today()
	if err != nil {
		return it, 0, err
	}
	return it, pos, nil
}

// CheckSource says whether a source can be queued at all, without looking
// at the queue: an http(s) URL with a host, or the absolute path of an
// existing regular file of a supported type.
func CheckSource(source string) error {
	if source == "" {
		return fmt.Errorf("%w: empty source", ErrSource)
	}
	if strings.Contains(source, "://") {
		u, err := url.Parse(source)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%w %s: not an http or https URL", ErrSource, source)
		}
		return nil
	}
	if !filepath.IsAbs(source) {
		return fmt.Errorf("%w %s: not a URL or an absolute file path", ErrSource, source)
	}
	st, err := os.Stat(source)
	switch {
	case err != nil:
		return fmt.Errorf("%w %s: no such file", ErrSource, source)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%w %s: not a regular file", ErrSource, source)
	case !fileTypes[strings.ToLower(filepath.Ext(source))]:
		return fmt.Errorf("%w %s: not a PDF, HTML, Markdown or text file", ErrSource, source)
	}
	return nil
}

// position counts the items that run before id: those running and those
// queued earlier. The item itself never counts, even when a worker
// claimed it between Add's kick and this count.
func (w *Worker) position(id uint64) (int, error) {
	items, err := w.opts.Queue.List()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, it := range items {
		if it.ID != id && (it.State == ingest.StateRunning || it.State == ingest.StateQueued && it.ID < id) {
			n++
		}
	}
	return n, nil
}

func (w *Worker) kick() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Worker) emit(ev ingest.Event) {
	if w.opts.Events != nil {
		w.opts.Events(ev)
	}
}

// folder is the generated folder in force.
func (w *Worker) folder() string {
	if w.opts.FolderFunc != nil {
		if f := w.opts.FolderFunc(); f != "" {
			return f
		}
	}
	return w.opts.Folder
}

func (w *Worker) compileOptions() compile.Options {
	if w.opts.Compile == nil {
		return compile.Options{}
	}
	return w.opts.Compile()
}

// Run works the queue until ctx ends: it claims the oldest queued item,
// ingests it, and waits for Add or the inbox when the queue is empty. On
// return nothing of the worker's is left running: an item interrupted by
// ctx is back in the queue, with no attempt counted.
func (w *Worker) Run(ctx context.Context) error {
	var tick <-chan time.Time
	if w.opts.Inbox > 0 {
		t := time.NewTicker(w.opts.Inbox)
		defer t.Stop()
		tick = t.C
		w.scanInbox()
	}
	defer func() {
		if _, err := w.opts.Queue.Recover(); err != nil {
			w.opts.Log.Error("put interrupted ingest back in the queue", "err", err)
		}
	}()
	for ctx.Err() == nil {
		it, ok, err := w.opts.Queue.Claim()
		if err != nil {
			w.opts.Log.Error("ingest queue", "err", err)
			ok = false
		}
		if ok {
			w.process(ctx, it)
			continue
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-tick:
			w.scanInbox()
		}
	}
	return nil
}

// process ingests one claimed item and records the outcome.
func (w *Worker) process(ctx context.Context, it ingest.Item) {
	start := time.Now()
	defer w.today()
	res, err := w.ingest(ctx, it)
	w.mu.Lock()
	delete(w.again, it.ID)
	w.mu.Unlock()
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Stopped, not failed: Run's Recover puts it back.
		w.opts.Log.Info("ingest interrupted", "source", it.Source)
		w.logRun(failedRun("ingest", it, "interrupted", "stopped before it was written; back in the queue", start))
		return
	}
	q := w.opts.Queue
	if err != nil {
		code, msg := Failure(err)
		w.logRun(failedRun("ingest", it, "failed", string(code)+": "+msg, start))
		if code == ingest.FailInternal {
			w.opts.Log.Error("ingest", "source", it.Source, "err", err)
		}
		if ferr := q.Fail(it.ID, msg); ferr != nil {
			w.opts.Log.Error("ingest queue", "err", ferr)
		}
		w.emit(ingest.Failed{ID: it.ID, Source: it.Source, Code: code, Message: msg})
		return
	}
	if cerr := q.Complete(it.ID, res.Note); cerr != nil {
		w.opts.Log.Error("ingest queue", "err", cerr)
	}
	done := ingest.Done{ID: it.ID, Source: it.Source, Note: res.Note, Title: res.Title,
		Written: res.Written, Review: res.Review, Dropped: res.Dropped, Summarised: res.Summarised, Unread: res.Unread}
	if done.Written == nil {
		done.Written = []string{}
	}
	if done.Review == nil {
		done.Review = []string{}
	}
	if done.Dropped == nil {
		done.Dropped = []ingest.Dropped{}
	}
	w.inboxFinished(it.Source)
	w.logRun(runOf("ingest", it.Source, res, res.Model, start))
	w.emit(done)
}

// loaded is a source's bytes and what tells the extractor how to read them.
type loaded struct {
	data        []byte
	name        string // file name, "" for a page
	contentType string // from the server, "" for a file
	pageURL     string // final URL of a page
}

// ingest takes one item from source to notes.
func (w *Worker) ingest(ctx context.Context, it ingest.Item) (compile.Result, error) {
	step := func(s ingest.Step, i, n int) {
		w.emit(ingest.Progress{ID: it.ID, Source: it.Source, Step: s, Index: i, Total: n})
	}
	step(ingest.StepFetching, 0, 0)
	w.mu.Lock()
	original, again := w.again[it.ID]
	w.mu.Unlock()
	var src loaded
	var err error
	if again && original != "" {
		src, err = w.readFile(filepath.Join(w.opts.Vault, filepath.FromSlash(original)))
		src.pageURL = sourceURL(it.Source)
	}
	if !again || original == "" || err != nil {
		src, err = w.load(ctx, it.Source)
	}
	if err != nil {
		return compile.Result{}, err
	}

	step(ingest.StepExtracting, 0, 0)
	doc, err := extract.Any(ctx, src.data, src.name, src.contentType, src.pageURL)
	if err != nil {
		return compile.Result{}, err
	}
	hash := extract.TextHash(doc)
	if err := w.opts.Queue.SetTextHash(it.ID, hash); err != nil {
		return compile.Result{}, err
	}
	if ctx.Err() != nil {
		return compile.Result{}, ctx.Err()
	}
	folder := w.folder()
	if err := compile.Adopt(w.opts.Vault, folder); err != nil {
		return compile.Result{}, err
	}
	opt := w.compileOptions()
	var rawPath string
	if !compile.PrivateSource(opt.Private, w.opts.Vault, it.Source) {
		// A private note's original stays where it lies, in its private
		// folder: a copy under raw/ would take it out.
		if rawPath, err = saveOnce(w.opts.Vault, path.Join(folder, "raw"), rawName(doc, src), src.data); err != nil {
			return compile.Result{}, err
		}
	}
	label := src.name
	if label == "" {
		label = src.pageURL
	}
	if err := w.saveFigures(doc, path.Join(folder, "attachments", extract.Slug(label))); err != nil {
		return compile.Result{}, err
	}

	opt.Vault, opt.Folder = w.opts.Vault, folder
	if w.opts.MaxCalls > 0 {
		opt.MaxCalls = w.opts.MaxCalls
	}
	cctx, progress, release := untilWriting(ctx, step)
	defer release()
	opt.Progress = progress
	opt.Written = func(n ingest.Written) { w.emit(n) }
	opt.Reviewed = func(r ingest.Reviewed) { w.emit(r) }
	res, err := w.compile(cctx, compile.Source{Doc: doc, Origin: it.Source, Raw: rawPath, Hash: hash, Captured: time.Now()}, opt)
	if err != nil && ctx.Err() != nil && cctx.Err() != nil {
		return res, fmt.Errorf("compile %s: %w", it.Source, context.Canceled)
	}
	if err != nil {
		return res, err
	}
	return res, nil
}

// untilWriting returns the context for a compile: ctx's end cancels it
// at once while the compiler reads, but once it reports the writing step
// a stop waits for the note to be whole. It returns too the progress hook
// (passing each step on to step) and the release.
func untilWriting(ctx context.Context, step func(ingest.Step, int, int)) (context.Context, func(ingest.Step, int, int), func()) {
	var writing atomic.Bool
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		if !writing.Load() {
			cancel()
		}
	})
	progress := func(s ingest.Step, i, n int) {
		if s == ingest.StepWriting {
			writing.Store(true)
		}
		step(s, i, n)
	}
	return cctx, progress, func() { stop(); cancel() }
}

// load fetches a URL through the guard or reads a file.
func (w *Worker) load(ctx context.Context, source string) (loaded, error) {
	if !strings.Contains(source, "://") {
		return w.readFile(source)
	}
	if w.opts.Fetch == nil {
		return loaded{}, errors.New("no fetch client")
	}
	res, err := w.opts.Fetch.Get(ctx, source)
	if err != nil {
		return loaded{}, err
	}
	ct := res.ContentType
	if res.Charset != "" {
		ct = mime.FormatMediaType(ct, map[string]string{"charset": res.Charset})
	}
	return loaded{data: res.Body, contentType: ct, pageURL: res.FinalURL}, nil
}

// fileError is a file that cannot be read; it maps to fetch_failed.
type fileError struct{ err error }

func (e *fileError) Error() string { return e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// readFile reads a source file. A file of the vault (the inbox, a saved
// original, a note given by path) is read like every vault file: no link
// followed, regular files only, never blocking (vault.ReadFile). A file
// elsewhere, named by the user, may be a link, but must be a regular file.
func (w *Worker) readFile(p string) (loaded, error) {
	var data []byte
	var err error
	if rel, rerr := filepath.Rel(w.opts.Vault, p); rerr == nil && w.opts.Vault != "" && filepath.IsLocal(rel) {
		data, err = vault.ReadFile(w.opts.Vault, filepath.ToSlash(rel), w.opts.MaxBytes)
	} else {
		data, err = readOutside(p, w.opts.MaxBytes)
	}
	if err != nil {
		return loaded{}, &fileError{fmt.Errorf("read %s: %w", p, err)}
	}
	return loaded{data: data, name: filepath.Base(p)}, nil
}

// readOutside reads a regular file (links followed) of at most max bytes.
func readOutside(p string, max int64) ([]byte, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, err
	}
	return vault.ReadFile(filepath.Dir(real), filepath.Base(real), max)
}

// sourceURL is the URL of a source, or "" for a file.
func sourceURL(source string) string {
	if strings.Contains(source, "://") {
		return source
	}
	return ""
}

// rawName names the saved original after the source's title, with the
// extension of what it is.
func rawName(doc *extract.Doc, src loaded) string {
	if src.name != "" {
		return src.name
	}
	ext := ".html"
	mt, _, _ := mime.ParseMediaType(src.contentType)
	switch mt {
	case "application/pdf":
		ext = ".pdf"
	case "text/plain":
		ext = ".txt"
	case "text/markdown", "text/x-markdown":
		ext = ".md"
	}
	return doc.Title + ext
}

// saveFigures writes a PDF's figures in folder (<Folder>/attachments/<slug>)
// and points the Markdown at where each went.
func (w *Worker) saveFigures(doc *extract.Doc, folder string) error {
	for i, im := range doc.Images {
		if len(im.Data) == 0 {
			continue
		}
		name := im.Name
		if name == "" {
			name = path.Base(im.Path)
		}
		p, err := saveOnce(w.opts.Vault, folder, name, im.Data)
		if err != nil {
			return err
		}
		doc.MoveImage(i, p)
	}
	return nil
}

// Failure maps an ingest error to its wire code and the sentence a user
// reads, which names the source.
func Failure(err error) (ingest.FailCode, string) {
	var dup *ingest.DuplicateError
	var fe *fetch.Error
	var xe *extract.Error
	var le *llm.Error
	var file *fileError
	switch {
	case errors.As(err, &dup):
		return ingest.FailDuplicate, DuplicateMessage(dup)
	case errors.As(err, &fe):
		if errors.Is(err, fetch.ErrRefused) || errors.Is(err, fetch.ErrURL) {
			return ingest.FailBlocked, fe.Error()
		}
		return ingest.FailFetch, fe.Error()
	case errors.As(err, &file):
		return ingest.FailFetch, file.Error()
	case errors.As(err, &xe):
		return ingest.FailExtract, xe.Error()
	case errors.As(err, &le):
		return ingest.FailModel, err.Error()
	case errors.Is(err, ingest.ErrSource), errors.Is(err, ErrSource):
		return ingest.FailBlocked, err.Error()
	}
	return ingest.FailInternal, err.Error()
}

// DuplicateMessage says what a duplicate source duplicates.
func DuplicateMessage(d *ingest.DuplicateError) string {
	old := d.Existing
	by := map[string]string{"url": "the same address", "path": "the same file", "text": "the same text"}[d.By]
	if by == "" {
		by = "the same " + d.By
	}
	switch {
	case old.State == ingest.StateDone && old.Result != "":
		return fmt.Sprintf("already ingested as %s (%s as %s)", old.Result, by, old.Source)
	case old.State == ingest.StateFailed:
		return fmt.Sprintf("%s as %s, which failed earlier (item %d)", by, old.Source, old.ID)
	}
	return fmt.Sprintf("already in the queue (item %d, %s): %s as %s", old.ID, old.State, by, old.Source)
}
