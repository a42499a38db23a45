package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/eval"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/state"
	"github.com/quire-app/quire/sidecar/vault"
)

// app is an opened vault: state folder, config and index.
type app struct {
	st  *state.Dir
	cfg config.Config
	ix  *index.Index
}

func open(c common, progress io.Writer) (*app, error) {
	if st, err := os.Stat(c.vault); err != nil || !st.IsDir() {
		// Still open the index when it exists: the empty-vault guard
		// reports the problem with what the index holds.
		if _, serr := os.Stat(state.Resolve(c.vault, c.state)); serr != nil {
			return nil, fmt.Errorf("vault %s: not a folder", c.vault)
		}
	}
	dir := state.Resolve(c.vault, c.state)
	st, err := state.Open(dir)
	if err != nil {
		return nil, err
	}
	cfg, warns, err := config.Load(dir)
	if err != nil {
		st.Close()
		return nil, err
	}
	for _, w := range warns {
		fmt.Fprintln(os.Stderr, "quire: warning:", w)
	}
	ix, err := index.Open(c.vault, st, cfg)
	if err != nil {
		st.Close()
		return nil, err
	}
	ix.Progress = progress
	return &app{st: st, cfg: cfg, ix: ix}, nil
}

// enableDense loads the built-in embedder and the vectors, unless the
// config turns dense search off.
func (a *app) enableDense() error {
	if a.cfg.Dense.Embedder == "none" || a.ix.Dense() {
		return nil
	}
	m, err := loadEmbedder(context.Background(), a.cfg)
	if err != nil {
		// Keyword search goes on; the next command or pass tries again.
		fmt.Fprintln(os.Stderr, "quire: warning: search by meaning is off:", err)
		return nil
	}
	warning, err := a.ix.EnableDense(a.st, m)
	if warning != "" {
		fmt.Fprintln(os.Stderr, "quire: warning:", warning)
	}
	return err
}

func (a *app) close() {
	if err := a.ix.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "quire: close index:", err)
	}
	a.st.Close()
}

func (a *app) searcher() (*search.Searcher, error) {
	langs, err := a.ix.Languages()
	if err != nil {
		return nil, err
	}
	s := &search.Searcher{BM25: a.ix.BM25, Langs: langs, Synonyms: search.SynonymsIf(a.cfg.Search.Synonyms)}
	if a.ix.Dense() {
		s.Dense = a.ix
	}
	return s, nil
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// update brings the index up to date, naming skipped files, and compacts
// it so that scores repeat from run to run.
func (a *app) update(ctx context.Context) (index.Stats, error) {
	st, err := a.ix.Run(ctx)
	warnSkips(st)
	if err != nil {
		return st, err
	}
	return st, a.ix.BM25.Compact(ctx)
}

func warnSkips(st index.Stats) {
	for _, s := range st.Skipped {
		fmt.Fprintf(os.Stderr, "quire: skipped %s: %s\n", s.Path, s.Reason)
	}
	for _, s := range st.Warnings {
		fmt.Fprintf(os.Stderr, "quire: warning: %s: %s\n", s.Path, s.Reason)
	}
}

func cmdIndex(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("index", &c)
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	a, err := open(c, os.Stderr)
	if err != nil {
		return err
	}
	defer a.close()
	st, err := a.update(ctx)
	if err != nil {
		return err
	}
	if err := a.enableDense(); err != nil {
		return err
	}
	var ds index.DenseStats
	if a.ix.Dense() {
		if ds, err = a.ix.Embed(ctx); err != nil {
			return err
		}
	}
	if c.json {
		return printJSON(struct {
			index.Stats
			Vectors index.DenseStats `json:"vectors"`
		}{st, ds})
	}
	return nil
}

func cmdSearch(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("search", &c)
	k := fs.Int("k", 0, "number of passages (default from config, 10)")
	channel := fs.String("channel", "bm25", "bm25, dense or hybrid")
	explain := fs.Bool("explain", false, "show the query's language and the translations used")
	pos, err := parse(fs, &c, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return usageErr("search: a QUERY is required")
	}
	ch, err := search.ParseChannel(*channel)
	if err != nil {
		return usageErr("--channel: %v", err)
	}
	if r := attach(ctx, c); r != nil { // a sidecar holds the index: ask it
		defer r.close()
		return r.search(ctx, c, query, *k, ch, *explain)
	}
	a, err := open(c, io.Discard)
	if err != nil {
		return err
	}
	defer a.close()
	if _, err := a.ix.Run(ctx); err != nil {
		return err
	}
	if ch != search.BM25 {
		if err := a.enableDense(); err != nil {
			return err
		}
		if ds := a.ix.DenseStats(); a.ix.Dense() && ds.Coverage() < 1 {
			fmt.Fprintf(os.Stderr, "quire: vectors cover %d of %d passages; run `quire index` to finish them\n", ds.Embedded, ds.Passages)
		}
	}
	if *k <= 0 {
		*k = a.cfg.Search.K
	}
	s, err := a.searcher()
	if err != nil {
		return err
	}
	if *explain {
		fmt.Fprint(os.Stderr, s.Explain(query))
	}
	began := time.Now()
	res, err := s.Query(ctx, query, *k, ch)
	if err != nil {
		return err
	}
	return printSearch(c, query, res, time.Since(began))
}

// printSearch prints a search's result, whether it was answered in process
// or by a running sidecar.
func printSearch(c common, query string, res search.Result, took time.Duration) error {
	if res.Warning != "" {
		fmt.Fprintln(os.Stderr, "quire: warning:", res.Warning)
	}
	if c.json {
		return printJSON(map[string]any{"query": query, "channel": res.Channel, "warning": res.Warning,
			"tookMs": float64(took.Microseconds()) / 1000, "passages": res.Passages})
	}
	if len(res.Passages) == 0 {
		fmt.Println("No passages match.")
		return nil
	}
	for i, p := range res.Passages {
		fmt.Printf("%d. %s  (%.2f)\n   %s\n   %s\n\n", i+1, p.Path, p.Score, p.Crumbs, snippet(p.Text, 240))
	}
	return nil
}

func snippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	return s[:cut] + " …"
}

type statusOut struct {
	Vault       string            `json:"vault"`
	State       string            `json:"state"`
	Notes       int               `json:"notes"`
	Chunks      int               `json:"chunks"`
	LastIndex   *time.Time        `json:"lastIndex"`
	Fingerprint string            `json:"fingerprint"`
	Skipped     []vault.Skip      `json:"skipped"`
	Warnings    []vault.Skip      `json:"warnings"`
	Languages   map[string]int    `json:"languages"`
	Vectors     *index.DenseStats `json:"vectors,omitempty"`
	Model       *modelOut         `json:"model,omitempty"`
}

// modelOut says which model answers and whether passages leave the machine.
type modelOut struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Endpoint string `json:"endpoint"`
	Remote   bool   `json:"remote"`
}

func modelStatus(cfg config.Config) *modelOut {
	m := cfg.Model
	if m.Provider == "" {
		return nil
	}
	return &modelOut{Provider: m.Provider, Model: m.Model, Endpoint: m.BaseURL(), Remote: !m.Local()}
}

func cmdStatus(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("status", &c)
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	if r := attach(ctx, c); r != nil { // a sidecar holds the index: ask it
		defer r.close()
		return r.status(ctx, c)
	}
	a, err := open(c, io.Discard)
	if err != nil {
		return err
	}
	defer a.close()
	meta, err := a.ix.Meta()
	if err != nil {
		return err
	}
	entries, err := a.ix.Entries()
	if err != nil {
		return err
	}
	out := statusOut{Vault: c.vault, State: a.st.Path, Notes: len(entries), Fingerprint: a.ix.Fingerprint(), Model: modelStatus(a.cfg),
		Skipped: meta.Skipped}
	if out.Skipped == nil {
		out.Skipped = []vault.Skip{}
	}
	if !meta.LastIndex.IsZero() {
		out.LastIndex = &meta.LastIndex
	}
	if _, err := os.Stat(a.st.Join("vectors")); err == nil {
		if err := a.enableDense(); err != nil {
			return err
		}
		if a.ix.Dense() {
			ds := a.ix.DenseStats()
			out.Vectors = &ds
		}
	}
	sum := index.Summarize(entries)
	out.Chunks, out.Languages, out.Warnings = sum.Chunks, sum.Languages, sum.Warnings
	if c.json {
		return printJSON(out)
	}
	out.print("")
	return nil
}

// print writes status for people; sidecar, when not empty, says which
// running sidecar answered.
func (out statusOut) print(sidecar string) {
	last := "never"
	if out.LastIndex != nil {
		last = out.LastIndex.Local().Format("2006-01-02 15:04:05")
	}
	fmt.Printf("Vault:   %s\nState:   %s\nNotes:   %d (%d chunks)\nIndexed: %s\nIndex:   %s\n", out.Vault, out.State, out.Notes, out.Chunks, last, out.Fingerprint)
	if v := out.Vectors; v != nil {
		fmt.Printf("Vectors: %d/%d chunks (%.0f%%), %s\n", v.Embedded, v.Passages, 100*v.Coverage(), v.Embedder)
	}
	if sidecar != "" {
		fmt.Println("Sidecar:", sidecar)
	}
	if m := out.Model; m != nil {
		where := "on this machine"
		if m.Remote {
			where = "NOT on this machine: passages of your notes are sent there (folders under `private:` never are)"
		}
		fmt.Printf("Model:   %s %s at %s, %s\n", m.Provider, m.Model, m.Endpoint, where)
	}
	if len(out.Skipped) > 0 {
		fmt.Printf("Skipped: %d\n", len(out.Skipped))
		for _, s := range out.Skipped {
			fmt.Printf("  %s: %s\n", s.Path, s.Reason)
		}
	}
	for _, w := range out.Warnings {
		fmt.Printf("Warning: %s: %s\n", w.Path, w.Reason)
	}
}

func cmdEval(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("eval", &c)
	gold := fs.String("gold", "", "gold questions (benchmark JSON or JSON lines)")
	k := fs.Int("k", 5, "cut-off for recall and nDCG")
	channel := fs.String("channel", "bm25", "bm25, dense or hybrid")
	misses := fs.Bool("misses", false, "list the questions whose span is not in the top k")
	rewrite := fs.Bool("rewrite", false, "have the configured model turn each question into search terms first (measures ask.rewrite)")
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	if *gold == "" {
		return usageErr("eval: --gold FILE is required")
	}
	ch, err := search.ParseChannel(*channel)
	if err != nil {
		return usageErr("--channel: %v", err)
	}
	qs, err := eval.Load(*gold)
	if err != nil {
		return err
	}
	a, err := open(c, os.Stderr)
	if err != nil {
		return err
	}
	defer a.close()
	if _, err := a.update(ctx); err != nil {
		return err
	}
	var ds index.DenseStats
	if ch != search.BM25 {
		if err := a.enableDense(); err != nil {
			return err
		}
		if a.ix.Dense() {
			if ds, err = a.ix.Embed(ctx); err != nil {
				return err
			}
		}
	}
	s, err := a.searcher()
	if err != nil {
		return err
	}
	var model ask.Model
	if *rewrite {
		if model = ask.ModelFor(a.cfg.Model); model == nil {
			return usageErr("--rewrite needs a model: set model.provider and model.model in %s", a.st.Join(config.FileName))
		}
	}
	retrieve := func(ctx context.Context, q string, n int) ([]eval.Hit, error) {
		if model != nil {
			rq, err := ask.Rewrite(ctx, model, q, s.Langs)
			if err != nil {
				fmt.Fprintln(os.Stderr, "quire: warning:", err)
			}
			q = rq
		}
		ps, err := s.Search(ctx, q, n, ch)
		if err != nil {
			return nil, err
		}
		hits := make([]eval.Hit, len(ps))
		for i, p := range ps {
			hits[i] = eval.Hit{Path: p.Path, Text: p.Text}
		}
		return hits, nil
	}
	entries, err := a.ix.Entries()
	if err != nil {
		return err
	}
	noteLang := func(p string) string { return entries[p].Lang }
	rep, err := eval.Run(ctx, qs, *k, retrieve, a.ix.BM25.Passages, noteLang)
	if err != nil {
		return err
	}
	rep.Channel = string(ch)
	if ds.Embedder != "" {
		rep.Dense = &eval.DenseInfo{Embedder: ds.Embedder, Coverage: ds.Coverage(), TextSeen: ds.TextSeen}
	}
	logErr := eval.Append(a.st.Join("evals.jsonl"), eval.LogEntry{
		Time: time.Now().UTC(), Gold: *gold, Report: rep,
		Config: map[string]any{"channel": ch, "k": *k, "fingerprint": a.ix.Fingerprint(), "chunk": a.cfg.Chunk, "rewrite": *rewrite, "model": a.cfg.Model.Model},
	})
	if logErr != nil {
		fmt.Fprintln(os.Stderr, "quire: warning:", logErr)
	}
	if !*misses {
		rep.Misses = nil
	}
	if c.json {
		return printJSON(rep)
	}
	printReport(rep)
	return nil
}

func printReport(r *eval.Report) {
	fmt.Printf("channel %s, k=%d, %d questions, %d reachable, median %.1f ms/query\n\n", r.Channel, r.K, r.Queries, r.Reachable, r.MedianQueryMS)
	fmt.Printf("%-14s %4s %10s %9s %10s %8s\n", "type", "n", "span@k", "span MRR", "note@k", "nDCG@k")
	fmt.Printf("%-14s %4d %10.3f %9.3f %10.3f %8.3f\n", "all", r.Queries, r.SpanRecallAtK, r.SpanMRR, r.NoteRecallAtK, r.NDCGAtK)
	for _, t := range sortedKeys(r.ByType) {
		m := r.ByType[t]
		fmt.Printf("%-14s %4d %10.3f %9.3f %10.3f %8.3f\n", t, m.N, m.SpanRecallAtK, m.SpanMRR, m.NoteRecallAtK, m.NDCGAtK)
	}
	for _, d := range sortedKeys(r.ByDirection) {
		m := r.ByDirection[d]
		fmt.Printf("%-14s %4d %10.3f %9.3f %10.3f %8.3f\n", d, m.N, m.SpanRecallAtK, m.SpanMRR, m.NoteRecallAtK, m.NDCGAtK)
	}
	for _, m := range r.Misses {
		fmt.Printf("miss [%s] span rank %d, note rank %d: %s (%s)\n", m.Type, m.SpanRank, m.NoteRank, m.Query, m.Expected)
	}
}
