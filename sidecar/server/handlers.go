package server

import (
	"cmp"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/source"
)

// bounded reports whether a request type takes a slot of Options.MaxWork:
// everything but ingest, whose requests only queue work for the worker.
// An ask is bounded too (its retrieval and extraction are CPU and memory
// work), but gives its slot up while it waits on the model (see slot.aside).
func bounded(typ string) bool {
	return !strings.HasPrefix(typ, "ingest.")
}

// slot is one request's turn in the work bound across every connection
// (Options.MaxWork). It is used by the request's goroutine only.
type slot struct {
	s    *Server
	held bool
}

type slotKey struct{}

// take waits for a turn, or reports false when ctx ends first.
func (sl *slot) take(ctx context.Context) bool {
	sl.s.waiting.Add(1)
	defer sl.s.waiting.Add(-1)
	select {
	case sl.s.work <- struct{}{}:
		sl.held = true
		return true
	case <-ctx.Done():
		return false
	}
}

func (sl *slot) release() {
	if sl.held {
		sl.held = false
		<-sl.s.work
	}
}

// aside runs call, a wait on a model (another process or machine, not
// this one's CPU), without the slot, and takes a turn again after it: a
// slow model must not hold back every other request.
func (sl *slot) aside(ctx context.Context, call func()) error {
	sl.release()
	call()
	if !sl.take(ctx) {
		return ctx.Err()
	}
	return nil
}

// asideOf returns the request's slot.aside, or nil for an unbounded one.
func asideOf(ctx context.Context) func(context.Context, func()) error {
	if sl, ok := ctx.Value(slotKey{}).(*slot); ok {
		return sl.aside
	}
	return nil
}

// handle answers one request: the reply's type and payload, or an error.
// A streaming request's parts go out through st before this returns.
func (s *Server) handle(ctx context.Context, env proto.Envelope, st Stream) (string, any, *proto.Error) {
	if bounded(env.Type) {
		// One bound across every connection, so that many pipelined
		// searches queue instead of each holding its results in memory.
		sl := &slot{s: s}
		if !sl.take(ctx) {
			return "", nil, &proto.Error{Code: proto.CodeNotReady, Message: "request cancelled while waiting its turn"}
		}
		defer sl.release()
		ctx = context.WithValue(ctx, slotKey{}, sl)
	}
	if s.hook != nil {
		s.hook(env.Type)
	}
	m, _ := proto.Lookup(env.Type)
	var payload any
	var err error
	if m.Stream {
		if f := s.stream(env.Type); f != nil {
			payload, err = f(ctx, env, st)
			if err != nil {
				return "", nil, s.toWire(env.Type, err)
			}
			return m.Reply, payload, nil
		}
	}
	switch env.Type {
	case proto.TypeStatusGet:
		payload, err = s.status(ctx)
	case proto.TypeSearchQuery:
		var q proto.SearchQuery
		if err = decode(env, &q); err == nil {
			payload, err = s.search(ctx, q)
		}
	case proto.TypeRelatedQuery:
		var q proto.RelatedQuery
		if err = decode(env, &q); err == nil {
			payload, err = s.related(ctx, q)
		}
	case proto.TypeNoteGet:
		var q proto.NoteGet
		if err = decode(env, &q); err == nil {
			payload, err = s.note(ctx, q)
		}
	case proto.TypeGrepQuery:
		var q proto.GrepQuery
		if err = decode(env, &q); err == nil {
			payload, err = s.grep(ctx, q)
		}
	case proto.TypeSourcesList:
		var q proto.SourcesList
		if err = decode(env, &q); err == nil {
			payload, err = s.sources(ctx, q)
		}
	case proto.TypeTOCGet:
		var q proto.TOCGet
		if err = decode(env, &q); err == nil {
			payload, err = s.toc(ctx, q)
		}
	case proto.TypeIndexRebuild:
		payload = proto.IndexResult{Started: s.e.Rebuild()}
	case proto.TypeAnswerSave:
		var q proto.AnswerSave
		if err = decode(env, &q); err == nil {
			payload, err = s.saveAnswer(st, q)
		}
	case proto.TypeConfigGet:
		payload = proto.ConfigResult{Settings: toSettings(s.e.Settings())}
	case proto.TypeConfigSet:
		var q proto.ConfigSet
		if err = decode(env, &q); err == nil {
			payload, err = s.configSet(q)
		}
	case proto.TypeIngestAdd:
		var q proto.IngestAdd
		if err = decode(env, &q); err == nil {
			payload, err = s.ingestAdd(q)
		}
	case proto.TypeQueueList:
		payload, err = s.queueList()
	case proto.TypeLintRun:
		var q proto.LintRun
		if err = decode(env, &q); err == nil {
			payload, err = s.lint(q)
		}
	case proto.TypeEvalRun:
		var q proto.EvalRun
		if err = decode(env, &q); err == nil {
			payload, err = s.evalRun(ctx, q)
		}
	case proto.TypeShutdown:
		if s.opts.OnShutdown == nil {
			err = &proto.Error{Code: proto.CodeInvalidRequest, Message: "shutdown is not answered by this sidecar"}
			break
		}
		payload = proto.ShutdownResult{PID: os.Getpid()}
		// The reply goes out first: the caller's shutdown waits for this
		// request to finish.
		go s.opts.OnShutdown()
	default:
		err = &proto.Error{Code: proto.CodeInvalidRequest, Message: env.Type + " is not answered by this sidecar"}
	}
	if err != nil {
		return "", nil, s.toWire(env.Type, err)
	}
	return m.Reply, payload, nil
}

// toWire turns an error into its wire form. Errors meant for the client
// are *proto.Error or *engine.Error; anything else is logged and sent as
// internal, except a cancelled request, which only happens at shutdown.
func (s *Server) toWire(typ string, err error) *proto.Error {
	var pe *proto.Error
	if errors.As(err, &pe) {
		return pe
	}
	var ee *engine.Error
	if errors.As(err, &ee) {
		if code, ok := client.Codes[ee.Kind]; ok {
			return &proto.Error{Code: code, Message: ee.Message}
		}
	}
	if errors.Is(err, context.Canceled) {
		return &proto.Error{Code: proto.CodeNotReady, Message: "sidecar is shutting down"}
	}
	s.log.Error("request failed", "type", typ, "err", err)
	return &proto.Error{Code: proto.CodeInternal, Message: typ + ": " + err.Error()}
}

// prefixed names the request in an engine error's message, for errors
// whose message alone does not say what was refused.
func prefixed(typ string, err error) error {
	var ee *engine.Error
	if errors.As(err, &ee) {
		return &engine.Error{Kind: ee.Kind, Message: typ + ": " + ee.Message}
	}
	return err
}

func decode(env proto.Envelope, v any) error {
	if err := env.Decode(v); err != nil {
		return &proto.Error{Code: proto.CodeInvalidRequest, Message: err.Error()}
	}
	return nil
}

func (s *Server) status(ctx context.Context) (proto.StatusResult, error) {
	st, err := s.e.Status(ctx)
	if err != nil {
		return proto.StatusResult{}, err
	}
	res := proto.StatusResult{
		Version:     s.opts.Version,
		Notes:       st.Notes,
		Chunks:      st.Chunks,
		Languages:   st.Languages,
		Indexing:    st.Indexing,
		LastIndexed: st.LastIndexed,
		Coverage:    proto.Coverage{VectorsDone: st.Vectors.Embedded, VectorsTotal: st.Vectors.Passages},
		Fingerprint: proto.Fingerprint{Chunking: st.Fingerprint, Embedder: st.Vectors.Embedder},
	}
	if p := st.Embedding; p != nil {
		res.Coverage.PerSecond, res.Coverage.SecondsLeft = p.PerSecond, p.Left.Seconds()
	}
	for _, w := range st.Warnings {
		res.Warnings = append(res.Warnings, proto.SkippedFile{Path: w.Path, Reason: w.Reason})
	}
	for _, sk := range st.Skipped {
		res.Skipped = append(res.Skipped, proto.SkippedFile{Path: sk.Path, Reason: sk.Reason})
	}
	return res, nil
}

func (s *Server) search(ctx context.Context, q proto.SearchQuery) (proto.SearchResult, error) {
	res, err := s.e.Search(ctx, engine.Query{Text: q.Query, K: q.K, Channel: search.Channel(q.Channel), Filter: search.Filter{Folder: q.Folder, Tag: q.Tag}, MCP: q.MCP, Typing: q.Typing})
	if err != nil {
		return proto.SearchResult{}, err
	}
	out := proto.SearchResult{Channel: proto.Channel(res.Channel), Warning: res.Warning, Passages: make([]proto.Passage, len(res.Passages))}
	m := res.Terms.Matcher() // the search's own reading of the query: no second translation
	for i, p := range res.Passages {
		out.Passages[i] = toPassage(p)
		out.Passages[i].Matches = m.Words(p.Text)
	}
	if w := res.Terms.When; w.Span() {
		out.Dates = &proto.DateSpan{From: w.From.Format(time.DateOnly), Through: w.To.AddDate(0, 0, -1).Format(time.DateOnly), Phrase: w.Phrase}
	}
	if q.Explain {
		out.Explain = s.e.Explain(q.Query)
	}
	return out, nil
}

// toPassage maps a ranked passage to the wire.
func toPassage(p search.Passage) proto.Passage {
	src, rel := source.Split(p.Path)
	return proto.Passage{ID: p.ID, Source: src, Path: rel, Title: p.Title, HeadingPath: p.Headings,
		Start: p.Start, End: p.End, Page: p.Page, Text: p.Text, Score: p.Score}
}

func (s *Server) related(ctx context.Context, q proto.RelatedQuery) (proto.RelatedResult, error) {
	ps, warning, err := s.e.Related(ctx, engine.Related{Path: q.Path, Text: q.Text, From: q.From, K: q.K, Exclude: q.Exclude})
	if err != nil {
		return proto.RelatedResult{}, err
	}
	res := proto.RelatedResult{Warning: warning, Notes: make([]proto.RelatedNote, len(ps))}
	for i, p := range ps {
		src, rel := source.Split(p.Path)
		res.Notes[i] = proto.RelatedNote{Source: src, Path: rel, Title: p.Title, Score: p.Score, Passage: toPassage(p.Passage)}
		for _, m := range p.More {
			res.Notes[i].More = append(res.Notes[i].More, toPassage(m))
		}
	}
	return res, nil
}

// toSettings is what config.get shows of the settings; the API key itself
// never leaves the sidecar.
func toSettings(st engine.Settings) proto.Settings {
	return proto.Settings{
		Ignore:   slices.Clone(st.Ignore),
		Folder:   st.Folder,
		Embedder: st.Embedder,
		Model: proto.ModelSettings{
			Provider:   st.Model.Provider,
			Endpoint:   st.Model.Endpoint,
			Model:      st.Model.Model,
			EmbedModel: st.Model.EmbedModel,
			Remote:     cmp.Or(st.Model.Remote, "auto"),
			APIKeySet:  st.Model.APIKey != "",
		},
		Rank: &proto.RankSettings{
			Rerank: st.Rerank,
			Reranker: proto.RerankerSettings{Provider: st.Reranker.Provider, Endpoint: st.Reranker.Endpoint,
				Model: st.Reranker.Model, Remote: cmp.Or(st.Reranker.Remote, "auto")},
		},
	}
}

func (s *Server) configSet(q proto.ConfigSet) (proto.ConfigResult, error) {
	st := s.e.Settings()
	st.Ignore, st.Folder, st.Embedder = q.Settings.Ignore, q.Settings.Folder, q.Settings.Embedder
	m := q.Settings.Model
	st.Model.Provider, st.Model.Endpoint, st.Model.Model, st.Model.EmbedModel, st.Model.APIKey = m.Provider, m.Endpoint, m.Model, m.EmbedModel, m.APIKey
	st.Model.Remote = m.Remote          // empty keeps it
	if r := q.Settings.Rank; r != nil { // absent keeps them
		st.Rerank = r.Rerank
		st.Reranker.Provider, st.Reranker.Endpoint, st.Reranker.Model, st.Reranker.Remote = r.Reranker.Provider, r.Reranker.Endpoint, r.Reranker.Model, r.Reranker.Remote
	}
	applied, restart, err := s.e.SetSettings(st)
	if err != nil {
		return proto.ConfigResult{}, prefixed(proto.TypeConfigSet, err)
	}
	return proto.ConfigResult{Settings: toSettings(applied), Restart: restart}, nil
}

func (s *Server) ingestAdd(q proto.IngestAdd) (proto.IngestResult, error) {
	it, pos, err := s.e.AddSource(q.Source, q.Resummarise)
	var ee *engine.Error
	if errors.As(err, &ee) && (ee.Kind == engine.Invalid || ee.Kind == engine.ModelUnavailable) {
		err = prefixed(proto.TypeIngestAdd, err)
	}
	if err != nil {
		return proto.IngestResult{}, err
	}
	return proto.IngestResult{ID: it.ID, Source: it.Source, Position: pos}, nil
}

func (s *Server) queueList() (proto.QueueResult, error) {
	items, err := s.e.Queue()
	if err != nil {
		return proto.QueueResult{}, err
	}
	res := proto.QueueResult{Items: make([]proto.QueueItem, len(items))}
	for i, it := range items {
		res.Items[i] = toQueueItem(it)
	}
	return res, nil
}

// lint is lint.run: the engine's check of its notes, on the wire.
func (s *Server) lint(q proto.LintRun) (proto.LintResult, error) {
	l, err := s.e.Lint(q.DryRun)
	if err != nil {
		return proto.LintResult{}, err
	}
	res := proto.LintResult{Notes: l.Notes, Defects: make([]proto.LintDefect, len(l.Defects)), Report: l.Report,
		Review: l.Review, Warning: l.Warning}
	for i, d := range l.Defects {
		res.Defects[i] = proto.LintDefect{Check: d.Check, Note: d.Note, Detail: d.Detail, Target: d.Target, Review: d.Review}
	}
	return res, nil
}

func toQueueItem(it ingest.Item) proto.QueueItem {
	q := proto.QueueItem{ID: it.ID, Source: it.Source, State: string(it.State), Attempts: it.Attempts,
		Error: it.LastError, Added: it.Added.UTC().Format(time.RFC3339)}
	if it.State == ingest.StateDone {
		q.Note = it.Result
	}
	return q
}
