package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/vault"
)

// Remote answers what an engine answers, through the sidecar that serves
// the vault: while a sidecar runs it holds the index's lock, so nobody
// else may open it.
type Remote struct {
	c   *Client
	pid int
	// Poll is how often Reindex asks whether a full rebuild has finished.
	Poll time.Duration

	mu      sync.Mutex
	lastAsk string // the id of the last ask.query, for SaveAnswer
}

// NewRemote returns a Remote that asks the sidecar connected through c,
// whose process id is pid (0 if unknown). The caller closes c.
func NewRemote(c *Client, pid int) *Remote {
	return &Remote{c: c, pid: pid, Poll: 200 * time.Millisecond}
}

// Client returns the connection.
func (r *Remote) Client() *Client { return r.c }

// Via names the sidecar, so that the user knows which process answered.
func (r *Remote) Via() string {
	if r.pid > 0 {
		return fmt.Sprintf("the running sidecar (pid %d)", r.pid)
	}
	return "the running sidecar"
}

// Status is engine.Engine.Status through the sidecar.
func (r *Remote) Status(ctx context.Context) (engine.Status, error) {
	st, err := r.c.Status(ctx)
	if err != nil {
		return engine.Status{}, r.wrap(err)
	}
	return r.fromStatus(st), nil
}

func (r *Remote) fromStatus(st proto.StatusResult) engine.Status {
	out := engine.Status{Vault: r.c.Welcome().Vault, Notes: st.Notes, Chunks: st.Chunks, Languages: st.Languages,
		Indexing: st.Indexing, LastIndexed: st.LastIndexed, Fingerprint: st.Fingerprint.Chunking,
		Vectors: index.DenseStats{Embedder: st.Fingerprint.Embedder, Embedded: st.Coverage.VectorsDone, Passages: st.Coverage.VectorsTotal,
			Vectors: st.Coverage.VectorsDone}, // one vector per embedded passage, as in process
		Skipped: fromSkipped(st.Skipped), Warnings: fromSkipped(st.Warnings)}
	if c := st.Coverage; c.PerSecond > 0 {
		out.Embedding = &engine.Progress{Phase: engine.PhaseEmbed, Done: c.VectorsDone, Total: c.VectorsTotal,
			PerSecond: c.PerSecond, Left: seconds(c.SecondsLeft)}
	}
	if out.Languages == nil {
		out.Languages = map[string]int{}
	}
	return out
}

func fromSkipped(s []proto.SkippedFile) []vault.Skip {
	out := make([]vault.Skip, len(s))
	for i, f := range s {
		out[i] = vault.Skip{Path: f.Path, Reason: f.Reason}
	}
	return out
}

// Reindex is engine.Engine.Reindex through the sidecar. The sidecar keeps
// its index current as files change, so an incremental reindex has nothing
// to start: it reports the index as the sidecar holds it. A full one asks
// the sidecar to rebuild and waits until its pass and its vectors are
// done, passing the sidecar's progress events to progress.
func (r *Remote) Reindex(ctx context.Context, full bool, progress func(engine.Progress)) (engine.Reindexed, error) {
	began := time.Now()
	before, err := r.c.Status(ctx)
	if err != nil {
		return engine.Reindexed{}, r.wrap(err)
	}
	after := before
	var down embedderDown
	if full {
		stop := r.follow(progress)
		defer stop()
		defer r.c.OnEvent(down.watch)()
		var res proto.IndexResult
		if err := r.c.Call(ctx, proto.TypeIndexRebuild, proto.IndexRebuild{}, &res); err != nil {
			return engine.Reindexed{}, r.wrap(err)
		}
		if after, err = r.waitPass(ctx, before.LastIndexed, &down); err != nil {
			return engine.Reindexed{}, err
		}
	}
	out := engine.Reindexed{Full: full, Stats: index.Stats{Notes: after.Notes, Chunks: after.Chunks,
		Skipped: fromSkipped(after.Skipped), Warnings: fromSkipped(after.Warnings)},
		Vectors: index.DenseStats{Embedder: after.Fingerprint.Embedder, Embedded: after.Coverage.VectorsDone, Passages: after.Coverage.VectorsTotal,
			Vectors: after.Coverage.VectorsDone}}
	if msg := down.message(); msg != "" && after.Coverage.VectorsDone < after.Coverage.VectorsTotal {
		out.VectorsErr = errors.New(msg)
	}
	if full {
		out.Stats.Changed = after.Notes // a rebuild re-reads every note
		out.Note = "rebuilt by " + r.Via()
	} else {
		out.Note = r.Via() + " keeps the index current as files change; these are its counts"
	}
	out.Took = time.Since(began)
	return out, nil
}

// follow passes the sidecar's index.progress events to f until stopped.
func (r *Remote) follow(f func(engine.Progress)) func() {
	if f == nil {
		return func() {}
	}
	return r.c.OnEvent(func(env proto.Envelope) {
		if env.Type != proto.TypeIndexProgress {
			return
		}
		var p proto.IndexProgress
		if env.Decode(&p) == nil {
			f(engine.Progress{Phase: engine.Phase(p.Phase), Done: p.Done, Total: p.Total, PerSecond: p.PerSecond, Left: seconds(p.SecondsLeft)})
		}
	})
}

// waitPass polls status until a pass that finished after since is over
// and the vectors it needs are computed. The sidecar answers
// index.rebuild at once and runs the pass in its watch loop; polling
// cannot miss the end, as a dropped event could.
func (r *Remote) waitPass(ctx context.Context, since time.Time, down *embedderDown) (proto.StatusResult, error) {
	t := time.NewTicker(r.Poll)
	defer t.Stop()
	for {
		st, err := r.c.Status(ctx)
		if err != nil {
			return st, r.wrap(err)
		}
		// The vectors are waited for unless the embedder said it is down:
		// they would not come before the caller gave up.
		if !st.Indexing && st.LastIndexed.After(since) && (st.Coverage.VectorsDone >= st.Coverage.VectorsTotal || down.message() != "") {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("rebuild by %s still running: %w", r.Via(), ctx.Err())
		case <-t.C:
		}
	}
}

// Search is engine.Engine.Search through the sidecar.
func (r *Remote) Search(ctx context.Context, q engine.Query) (search.Result, error) {
	res, err := r.c.Search(ctx, proto.SearchQuery{Query: q.Text, K: q.K, Channel: proto.Channel(q.Channel), Folder: q.Filter.Folder, Tag: q.Filter.Tag, MCP: q.MCP})
	if err != nil {
		return search.Result{}, r.wrap(err)
	}
	out := search.Result{Channel: search.Channel(res.Channel), Warning: res.Warning, Passages: make([]search.Passage, len(res.Passages))}
	for i, p := range res.Passages {
		out.Passages[i] = fromPassage(p)
	}
	return out, nil
}

func fromPassage(p proto.Passage) search.Passage {
	return search.Passage{ID: p.ID, Path: source.Key(p.Source, p.Path), Title: p.Title, Headings: p.HeadingPath,
		Start: p.Start, End: p.End, Text: p.Text, Score: p.Score}
}

// Note is engine.Engine.Note through the sidecar.
func (r *Remote) Note(ctx context.Context, p string, mcp bool) (string, error) {
	var res proto.NoteResult
	if err := r.c.Call(ctx, proto.TypeNoteGet, proto.NoteGet{Path: p, MCP: mcp}, &res); err != nil {
		return "", r.wrap(err)
	}
	return res.Text, nil
}

// Ask is engine.Engine.Ask through the sidecar: the answer streams to
// onDelta, then the checked answer is returned.
func (r *Remote) Ask(ctx context.Context, q engine.Question, onDelta func(string)) (ask.Answer, error) {
	var done proto.AskDone
	var history []proto.AskTurn
	for _, t := range q.History {
		history = append(history, proto.AskTurn{Question: t.Question, Answer: t.Answer, Passages: t.Passages})
	}
	id, err := r.c.StreamID(ctx, proto.TypeAskQuery, proto.AskQuery{Question: q.Text, K: q.K, Channel: proto.Channel(q.Channel), History: history,
		Folder: q.Scope.Folder, Tag: q.Scope.Tag, MCP: q.MCP},
		func(env proto.Envelope) error {
			var d proto.AskDelta
			if onDelta != nil && env.Decode(&d) == nil {
				onDelta(d.Text)
			}
			return nil
		}, &done)
	if err != nil {
		return ask.Answer{}, r.wrap(err)
	}
	r.mu.Lock()
	r.lastAsk = id
	r.mu.Unlock()
	return FromAskDone(q.Text, done), nil
}

// SaveAnswer saves the answer of this Remote's last Ask as a note, as
// engine.Engine.SaveAnswer does: the sidecar keeps its recent answers and
// saves the one its ask.query gave (ans must be that answer).
func (r *Remote) SaveAnswer(ans ask.Answer) (string, error) {
	r.mu.Lock()
	id := r.lastAsk
	r.mu.Unlock()
	if id == "" {
		return "", errors.New("save answer: no answer from " + r.Via() + " to save")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res proto.AnswerResult
	if err := r.c.Call(ctx, proto.TypeAnswerSave, proto.AnswerSave{AskID: id}, &res); err != nil {
		return "", r.wrap(err)
	}
	return res.Path, nil
}

// FromAskDone maps an ask.done payload back to the answer it was made of.
func FromAskDone(question string, d proto.AskDone) ask.Answer {
	a := ask.Answer{Question: question, Lang: lang.Lang(d.Lang), Text: d.Answer, Grounded: d.Grounded, Refused: d.Refused,
		Extracted: d.Extracted, Dropped: d.DroppedCitations, Channel: search.Channel(d.Channel), Model: d.Model, Remote: d.Remote,
		InputTokens: d.InputTokens, OutputTokens: d.OutputTokens, Took: time.Duration(d.Ms * float64(time.Millisecond))}
	if d.Warning != "" {
		a.Warnings = []string{d.Warning}
	}
	for _, c := range d.Citations {
		a.Citations = append(a.Citations, ask.Citation{N: c.Number, Hash: c.Hash, Passage: search.Passage{ID: c.ID, Path: source.Key(c.Source, c.Path),
			Title: c.Title, Headings: c.HeadingPath, Start: c.Start, End: c.End, Text: c.Text}})
	}
	for _, q := range d.Quotes {
		a.Quotes = append(a.Quotes, ask.Quote{N: q.Number, Text: q.Text, Verified: q.Verified})
	}
	return a
}

// Explain says how the sidecar reads a query: its language, synonyms
// (the sidecar's own) and translations.
func (r *Remote) Explain(query string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := r.c.Search(ctx, proto.SearchQuery{Query: query, K: 1, Channel: proto.ChannelBM25, Explain: true})
	if err != nil {
		return "explain: " + r.wrap(err).Error() + "\n"
	}
	return res.Explain
}

// Codes maps the engine's error kinds to the protocol's codes: the server
// sends them, and kinds reads them back here.
var Codes = map[engine.Kind]proto.ErrorCode{
	engine.Invalid:          proto.CodeInvalidRequest,
	engine.NotFound:         proto.CodeNotFound,
	engine.TooLarge:         proto.CodeTooLarge,
	engine.NotReady:         proto.CodeNotReady,
	engine.Duplicate:        proto.CodeDuplicate,
	engine.ModelUnavailable: proto.CodeModelUnavailable,
}

// kinds is Codes read backwards.
var kinds = func() map[proto.ErrorCode]engine.Kind {
	m := make(map[proto.ErrorCode]engine.Kind, len(Codes))
	for k, c := range Codes {
		m[c] = k
	}
	return m
}()

// wrap turns an error frame back into the engine's error, and names the
// sidecar in any other error, so that the user knows which process to
// look at.
// Lint asks the sidecar to check the notes Quire wrote (engine.Lint).
func (r *Remote) Lint(ctx context.Context, dryRun bool) (engine.Lint, error) {
	var res proto.LintResult
	if err := r.c.Call(ctx, proto.TypeLintRun, proto.LintRun{DryRun: dryRun}, &res); err != nil {
		return engine.Lint{}, r.wrap(err)
	}
	out := engine.Lint{Notes: res.Notes, Defects: make([]engine.LintDefect, len(res.Defects)), Report: res.Report,
		Review: res.Review, Warning: res.Warning}
	for i, d := range res.Defects {
		out.Defects[i] = engine.LintDefect{Check: d.Check, Note: d.Note, Detail: d.Detail, Target: d.Target, Review: d.Review}
	}
	if out.Review == nil {
		out.Review = []string{}
	}
	return out, nil
}

func (r *Remote) wrap(err error) error {
	var pe *proto.Error
	if errors.As(err, &pe) {
		if k, ok := kinds[pe.Code]; ok {
			return &engine.Error{Kind: k, Message: pe.Message}
		}
		return fmt.Errorf("%s: %s", r.Via(), pe.Message)
	}
	return fmt.Errorf("%s: %w", r.Via(), err)
}

// embedderDown records the sidecar's warning that its embedder failed
// (model_unavailable), which a rebuild's waiter must not wait past.
type embedderDown struct {
	mu  sync.Mutex
	msg string
}

// watch is a Client.OnEvent callback.
func (d *embedderDown) watch(env proto.Envelope) {
	if env.Type != proto.TypeSidecarWarning {
		return
	}
	var w proto.SidecarWarning
	if env.Decode(&w) == nil && w.Code == proto.CodeModelUnavailable {
		d.mu.Lock()
		d.msg = w.Message
		d.mu.Unlock()
	}
}

func (d *embedderDown) message() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.msg
}

// seconds is a wire count of seconds as a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
