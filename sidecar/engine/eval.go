package engine

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/buildinfo"
	"github.com/quire-app/quire/sidecar/eval"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/search"
)

// EvalRun says how to score retrieval on a gold file.
type EvalRun struct {
	// Name and Set name the run and its questions in the log.
	Name, Set string
	// Gold is the gold file's path, logged with the run with its hash.
	Gold string
	// Hash, when set, is logged as the questions' hash instead of the
	// gold file's: for questions not read from Gold as they are (the
	// plugin's view sends them, edited or not yet saved).
	Hash      string
	Questions []eval.Question
	K         int
	Channel   search.Channel
	// Rewrite has the configured model turn each question into search
	// terms first; without a model it is an error.
	Rewrite bool
	// Rerank, when set, overrides search.rerank for this run.
	Rerank search.Rerank
	// Log, when set, is an eval log the run is appended to besides
	// <state>/evals.jsonl (scripts/eval-all's, over several sets).
	Log string
	// Warn receives per-question problems (a rewrite that failed).
	Warn func(string)
}

// ErrNoModel is returned by Eval with Rewrite when no model is configured.
var ErrNoModel = errors.New("no model configured")

// Eval scores retrieval on run's questions over the index as it is, and
// appends the run to <state>/evals.jsonl when the engine has a state
// folder (Options.StateDir) (a failure to log is returned as logErr, the report stands).
func (e *Engine) Eval(ctx context.Context, run EvalRun) (rep *eval.Report, logErr error, err error) {
	snap := e.snap.Load()
	s := snap.searcher
	rerank := search.Rerank(e.Config().Search.Rerank)
	if run.Rerank != "" {
		c := *s
		c.Rerank, rerank = run.Rerank, run.Rerank
		s = &c
	}
	var model ask.Model
	if run.Rewrite {
		if model = e.answerModel(); model == nil {
			return nil, nil, ErrNoModel
		}
	}
	retrieve := func(ctx context.Context, q string, n int) ([]eval.Hit, error) {
		if model != nil {
			rq, err := ask.Rewrite(ctx, model, q, s.Langs)
			if err != nil && run.Warn != nil {
				run.Warn(err.Error())
			}
			q = rq
		}
		ps, err := s.Search(ctx, q, n, run.Channel)
		if err != nil {
			return nil, err
		}
		hits := make([]eval.Hit, len(ps))
		for i, p := range ps {
			hits[i] = eval.Hit{Path: p.Path, Text: p.Text}
		}
		return hits, nil
	}
	noteLang := func(p string) string {
		en, _ := snap.notes.entry(p)
		return en.Lang
	}
	rep, err = eval.Run(ctx, run.Questions, run.K, retrieve, e.ix.BM25.Passages, noteLang)
	if err != nil {
		return nil, nil, err
	}
	rep.Channel = string(run.Channel)
	if run.Channel != search.BM25 && e.ix.Dense() {
		ds := e.ix.DenseStats()
		rep.Dense = &eval.DenseInfo{Embedder: ds.Embedder, Coverage: ds.Coverage(), TextSeen: ds.TextSeen, WindowsPerPassage: ds.WindowsPerPassage}
	}
	if log := e.evalLog(); log != "" {
		entry := e.evalEntry(run, rerank, rep)
		logErr = eval.Append(log, entry)
		if run.Log != "" && logErr == nil {
			logErr = eval.Append(run.Log, entry)
		}
	}
	return rep, logErr, nil
}

// evalLog is the state folder's eval log, "" for an engine without one.
func (e *Engine) evalLog() string {
	if e.opts.StateDir == "" {
		return ""
	}
	return filepath.Join(e.opts.StateDir, "evals.jsonl")
}

// evalEntry is the log line of a run: what it measured, on which
// questions (by their hash), with which engine and which ranking.
func (e *Engine) evalEntry(run EvalRun, rerank search.Rerank, rep *eval.Report) eval.LogEntry {
	cfg := e.Config()
	sc := cfg.Search
	rk := eval.Ranking{
		Channel: string(run.Channel), K: run.K, Rerank: string(rerank), Rewrite: run.Rewrite, Model: cfg.Model.Model,
		Fusion: eval.Fusion{DenseWeight: sc.DenseWeight, Pool: sc.Pool, PerNote: sc.PerNote, Coordination: sc.Coordination,
			PreferLanguage: sc.PreferLanguage, Synonyms: sc.Synonyms},
		Fields:      eval.Fields{Title: sc.Fields.Title, Aliases: sc.Fields.Aliases, Headings: sc.Fields.Headings, Separate: sc.Fields.Separate, Exact: sc.Fields.Exact},
		Fingerprint: e.ix.Fingerprint(), Markdown: markdown.Version, Analysis: index.Analysis(),
		Chunk: eval.Chunk{MaxTokens: cfg.Chunk.MaxTokens, OverlapTokens: cfg.Chunk.OverlapTokens, MinTokens: cfg.Chunk.MinTokens},
	}
	if rep.Dense != nil {
		rk.Embedder = rep.Dense.Embedder
	}
	set := run.Set
	if set == "" {
		set = eval.DefaultSet(run.Gold)
	}
	hash := run.Hash
	if hash == "" {
		hash, _ = eval.HashFile(run.Gold) // a gold file just read; no hash only if it vanished since
	}
	return eval.LogEntry{Time: time.Now().UTC(), Name: run.Name, Set: set, Version: buildinfo.Version(), Commit: eval.Commit(),
		Gold: run.Gold, GoldHash: hash, Config: rk, Report: rep}
}

// Update brings the keyword index up to date with the vault, without the
// compaction and the vectors of Reindex: what a one-off command needs
// before it reads.
func (e *Engine) Update(ctx context.Context) (index.Stats, error) {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	st, err := e.ix.Run(ctx)
	if rerr := e.refresh(err == nil); err == nil {
		err = rerr
	}
	return st, err
}

// Indexed reports whether the index was built by the configuration in
// force: a one-shot command then reads it as it is, rather than walk the
// vault first.
func (e *Engine) Indexed() bool {
	m := e.snap.Load().meta
	return !m.LastIndex.IsZero() && m.Fingerprint == e.ix.Fingerprint()
}

// Explain says how a query is read: its language, synonyms and
// translations.
func (e *Engine) Explain(query string) string { return e.snap.Load().searcher.Explain(query) }

// EvalAsk measures extracted answers (the ones given without a model):
// answerable questions should be answered citing an expected note, and
// unanswerable ones refused. Each is asked with no refusal threshold, so
// the report shows the effect of every threshold; the one in force is
// ask.DefaultMinEvidence. Nothing is logged.
func (e *Engine) EvalAsk(ctx context.Context, answerable []eval.Question, unanswerable []eval.Unanswerable, ch search.Channel) (*eval.AskReport, error) {
	snap := e.snap.Load()
	asker := &ask.Asker{Search: snap.searcher, Channel: ch, MinEvidence: -1, Answers: e.answersFolder()}
	answer := func(ctx context.Context, q string) (eval.Answered, error) {
		ans, err := asker.Ask(ctx, ask.Query{Question: q}, nil)
		if err != nil {
			return eval.Answered{}, err
		}
		out := eval.Answered{Evidence: ans.Evidence, Text: ans.Text}
		for _, c := range ans.Citations {
			out.Cited = append(out.Cited, c.Path)
		}
		return out, nil
	}
	rep, err := eval.Ask(ctx, answerable, unanswerable, ask.DefaultMinEvidence, answer)
	if err != nil {
		return nil, err
	}
	rep.Channel = string(ch)
	return rep, nil
}
