package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/eval"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/state"
)

func cmdEval(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("eval", &c)
	gold := fs.String("gold", "", "gold questions (benchmark JSON, second-brain-evals questions.json, or JSON lines)")
	k := fs.Int("k", 5, "cut-off for recall and nDCG")
	channel := fs.String("channel", "bm25", "bm25, dense or hybrid, or several with commas (bm25,hybrid): one logged entry each")
	misses := fs.Bool("misses", false, "list the questions whose span is not in the top k")
	rewrite := fs.Bool("rewrite", false, "have the configured model turn each question into search terms first (measures ask.rewrite)")
	rerank := fs.String("rerank", "", "off, builtin or endpoint: how the pool is reordered before the cut (default: search.rerank in config.yaml)")
	askMode := fs.Bool("ask", false, "measure extracted answers instead of retrieval: answered (gold) and refused (--unanswerable) at each refusal threshold")
	unanswerable := fs.String("unanswerable", "", "with --ask: questions the vault does not answer (JSON lines of {\"question\"})")
	name := fs.String("name", "", "name this run in the log (what --control and --decide find it by)")
	set := fs.String("set", "", "name the question set in the log and the report (default: the gold file's name)")
	control := fs.String("control", "", "compare with the newest run of this name (same set and channel)")
	decide := fs.Bool("decide", false, "with --control: say whether the run (--name, else the newest) may replace the control under README's decision rule, over every set of the log; exit 1 when not")
	report := fs.String("report", "", "write the log as one self-contained HTML page (tables shaded against --control, pictures) to this file")
	logFile := fs.String("log", "", "the eval log to append to and read (default <state>/evals.jsonl; scripts/eval-all's -o file over several sets)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *gold == "" && *report == "" && !*decide {
		return usageErr("eval: --gold FILE is required (or --report/--decide over a log)")
	}
	if c.vault == "" && (*gold != "" || *logFile == "") {
		return usageErr("--vault is required")
	}
	if *decide && *control == "" {
		return usageErr("eval: --decide needs --control NAME")
	}
	if *unanswerable != "" && !*askMode {
		return usageErr("eval: --unanswerable needs --ask")
	}
	if *askMode && (*report != "" || *decide) {
		return usageErr("eval: --ask is not logged; --report and --decide read retrieval runs")
	}
	var chans []search.Channel
	for _, name := range strings.Split(*channel, ",") {
		ch, err := search.ParseChannel(strings.TrimSpace(name))
		if err != nil {
			return usageErr("--channel: %v", err)
		}
		chans = append(chans, ch)
	}
	if *askMode && len(chans) > 1 {
		return usageErr("eval: --ask takes one channel")
	}
	var rr search.Rerank
	if *rerank != "" {
		var err error
		if rr, err = search.ParseRerank(*rerank); err != nil {
			return usageErr("--rerank: %v", err)
		}
	}
	logPath := *logFile
	if *gold != "" {
		stateLog, err := runEval(ctx, c, *gold, chans, rr, evalOptions{k: *k, rewrite: *rewrite, misses: *misses, askMode: *askMode,
			unanswerable: *unanswerable, name: *name, set: *set, control: *control, log: *logFile, quiet: *decide})
		if err != nil || *askMode {
			return err
		}
		if logPath == "" {
			logPath = stateLog
		}
	}
	if logPath == "" {
		logPath = filepath.Join(state.Resolve(c.vault, c.state), "evals.jsonl")
	}
	if *report == "" && !*decide {
		return nil
	}
	log, err := eval.ReadLog(logPath)
	if err != nil {
		return err
	}
	if *report != "" {
		if err := writeReport(*report, log, *control); err != nil {
			return err
		}
	}
	if !*decide {
		return nil
	}
	ch := "hybrid" // the rule reads the default channel unless told another
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "channel" {
			ch = string(chans[len(chans)-1])
		}
	})
	d, err := eval.Decide(log, *control, *name, ch, eval.DefaultRule)
	if err != nil {
		return err
	}
	fmt.Print(d)
	if !d.Accept {
		return &exitError{code: 1, err: fmt.Errorf("the decision rule refuses %q in place of %q", d.Run, d.Control)}
	}
	return nil
}

// evalOptions are cmdEval's flags for the runs themselves.
type evalOptions struct {
	k                        int
	rewrite, misses, askMode bool
	unanswerable             string
	name, set, control, log  string
	quiet                    bool // --decide prints the verdict, not the tables
}

// runEval scores the gold file on each channel, logs each run and prints
// it (with --control, against the control); it returns the state
// folder's log.
func runEval(ctx context.Context, c common, gold string, chans []search.Channel, rr search.Rerank, o evalOptions) (string, error) {
	qs, err := eval.Load(gold)
	if err != nil {
		return "", err
	}
	e, err := open(c, false, nil)
	if err != nil {
		return "", err
	}
	defer closeEngine(e)
	stateLog := filepath.Join(e.State(), "evals.jsonl")
	if o.log != "" && sameFile(o.log, stateLog) {
		o.log = "" // logged there once
	}
	for _, ch := range chans {
		if ch != search.BM25 {
			if err := e.EnableDense(ctx); err != nil {
				return "", err
			}
			break
		}
	}
	progress, done := progressPrinter()
	r, err := e.Reindex(ctx, false, progress)
	done()
	warnSkips(r.Stats)
	if err != nil {
		return "", err
	}
	if r.VectorsErr != nil {
		return "", r.VectorsErr
	}
	if o.askMode {
		var un []eval.Unanswerable
		if o.unanswerable != "" {
			if un, err = eval.LoadUnanswerable(o.unanswerable); err != nil {
				return "", err
			}
		}
		rep, err := e.EvalAsk(ctx, qs, un, chans[0])
		if err != nil {
			return "", err
		}
		if !o.misses {
			rep.Questions = nil
		}
		if c.json {
			return "", printJSON(rep)
		}
		printAskReport(rep)
		return "", nil
	}
	var reps []*eval.Report
	for _, ch := range chans {
		rep, logErr, err := e.Eval(ctx, engine.EvalRun{Name: o.name, Set: o.set, Gold: gold, Questions: qs, K: o.k, Channel: ch, Rewrite: o.rewrite, Rerank: rr, Log: o.log,
			Warn: func(w string) { fmt.Fprintln(os.Stderr, "quire: warning:", shown(w)) }})
		if errors.Is(err, engine.ErrNoModel) {
			return "", usageErr("--rewrite needs a model: set model.provider and model.model in %s", filepath.Join(e.State(), config.FileName))
		}
		if err != nil {
			return "", err
		}
		if logErr != nil {
			fmt.Fprintln(os.Stderr, "quire: warning:", logErr)
		}
		reps = append(reps, rep)
	}
	var log []eval.LogEntry
	if o.control != "" && !c.json && !o.quiet {
		if log, err = eval.ReadLog(stateLog); err != nil {
			return "", err
		}
	}
	set := o.set
	if set == "" {
		set = eval.DefaultSet(gold)
	}
	for i, rep := range reps {
		// What is printed is cut; the log keeps every question's rank.
		if !o.misses {
			rep.Misses, rep.Ranks = nil, nil
		}
		switch {
		case o.quiet:
		case c.json:
		default:
			if i > 0 {
				fmt.Println()
			}
			printReport(rep)
			if log != nil {
				printComparison(log, o.control, set, rep)
			}
		}
	}
	if c.json && !o.quiet {
		if len(reps) == 1 {
			return stateLog, printJSON(reps[0])
		}
		return stateLog, printJSON(reps)
	}
	return stateLog, nil
}

// sameFile reports whether two paths name one file (or would).
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

func printReport(r *eval.Report) {
	fmt.Printf("channel %s, k=%d, %d questions, %d reachable, median %.1f ms/query\n\n", r.Channel, r.K, r.Queries, r.Reachable, r.MedianQueryMS)
	// note@k counts distinct notes over the pool (the benchmark's rule);
	// shown@k and notes@k are what the top k passages show a reader.
	fmt.Printf("%-14s %4s %10s %9s %10s %8s %8s %8s\n", "type", "n", "span@k", "span MRR", "note@k", "nDCG@k", "shown@k", "notes@k")
	row := func(name string, n int, m eval.Scores) {
		fmt.Printf("%-14s %4d %10.3f %9.3f %10.3f %8.3f %8.3f %8.2f\n", name, n, m.SpanRecallAtK, m.SpanMRR, m.NoteRecallAtK, m.NDCGAtK, m.ShownNoteRecallAtK, m.DistinctNotesAtK)
	}
	row("all", r.Queries, r.Scores)
	for _, t := range slices.Sorted(maps.Keys(r.ByType)) {
		row(t, r.ByType[t].N, r.ByType[t].Scores)
	}
	for _, d := range slices.Sorted(maps.Keys(r.ByDirection)) {
		row(d, r.ByDirection[d].N, r.ByDirection[d].Scores)
	}
	printGoldFiles(r)
	for _, m := range r.Misses {
		fmt.Printf("miss [%s] span rank %d, note rank %d: %s (%s)\n", m.Type, m.SpanRank, m.NoteRank, m.Query, m.Expected)
	}
}

// printGoldFiles prints second-brain-evals' table for a questions.json
// run: R@5, R@10 and reachability (a gold file in the pool of 50), as
// shares and counts, overall and per type.
func printGoldFiles(r *eval.Report) {
	if r.GoldFiles == nil {
		return
	}
	fmt.Printf("\nsecond-brain-evals (a gold file among the notes of the top k passages; reach: in the pool of %d)\n", eval.Pool)
	fmt.Printf("%-14s %4s %14s %14s %14s\n", "type", "n", "R@5", "R@10", "reach")
	row := func(name string, n int, g *eval.GoldFileScores) {
		if g == nil {
			return
		}
		cell := func(f float64, c int) string { return fmt.Sprintf("%3.0f%% (%d/%d)", 100*f, c, n) }
		fmt.Printf("%-14s %4d %14s %14s %14s\n", name, n, cell(g.R5, g.Hits5), cell(g.R10, g.Hits10), cell(g.Reachability, g.InPool))
	}
	row("all", r.Queries, r.GoldFiles)
	for _, t := range slices.Sorted(maps.Keys(r.ByType)) {
		row(t, r.ByType[t].N, r.ByType[t].GoldFiles)
	}
}

func printAskReport(r *eval.AskReport) {
	fmt.Printf("extracted answers, channel %s: %d answerable, %d unanswerable questions\n\n", r.Channel, r.Answerable, r.Unanswerable)
	fmt.Printf("%-14s %9s %9s %9s %9s\n", "threshold", "answered", "right", "span", "refused")
	row := func(name string, p eval.AskPoint) {
		fmt.Printf("%-14s %9.3f %9.3f %9.3f %9.3f\n", name, p.Answered, p.Right, p.Span, p.Refused)
	}
	row(fmt.Sprintf("%.2f (in use)", r.AtThreshold.Threshold), r.AtThreshold)
	for _, t := range slices.Sorted(maps.Keys(r.ByType)) {
		row("  "+t, *r.ByType[t])
	}
	fmt.Println()
	for _, p := range r.Sweep {
		row(fmt.Sprintf("%.2f", p.Threshold), p)
	}
	for _, q := range r.Questions {
		fmt.Printf("evidence %.2f answerable=%v right=%v span=%v: %s\n", q.Evidence, q.Answerable, q.Right, q.Span, q.Query)
	}
}

// reportMark is in every report page `quire eval --report` writes; a
// file without it is not overwritten (it is not Quire's to replace).
const reportMark = `<title>Quire eval report</title>`

// writeReport renders the log as one HTML page at path, atomically, and
// refuses to replace a file that is not a Quire report.
func writeReport(path string, log []eval.LogEntry, control string) error {
	if old, err := os.ReadFile(path); err == nil {
		if !bytes.Contains(old[:min(len(old), 1024)], []byte(reportMark)) {
			return fmt.Errorf("--report %s: the file exists and is not a Quire eval report; name another file", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--report: %w", err)
	}
	page := eval.HTML(log, control, time.Now())
	tmp, err := os.CreateTemp(filepath.Dir(path), ".quire-report-*.html")
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(page); err != nil {
		tmp.Close()
		return fmt.Errorf("--report: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("--report: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	fmt.Fprintf(os.Stderr, "quire: wrote %s (%d bytes)\n", path, len(page))
	return nil
}

// printComparison prints this run's span recall@k against the newest
// control run of the same set and channel in the log.
func printComparison(log []eval.LogEntry, control, set string, rep *eval.Report) {
	c := eval.Latest(log, control, set, rep.Channel)
	if c == nil {
		fmt.Fprintf(os.Stderr, "quire: warning: no run named %q on set %s, channel %s, to compare with\n", control, set, rep.Channel)
		return
	}
	fmt.Printf("\nagainst %q (%s, %.12s), span@k; marked where the change is beyond ±%.3f (five questions of %d)\n",
		control, c.Time.Format("2006-01-02 15:04"), c.Commit, eval.Resolution(rep.Queries), rep.Queries)
	fmt.Printf("%-14s %4s %9s %9s %8s\n", "", "n", "control", "this run", "change")
	mark := map[string]string{"gain": "  gain", "loss": "  LOSS", "same": ""}
	for _, ch := range eval.Compare(rep, c.Report) {
		fmt.Printf("%-14s %4d %9.3f %9.3f %+8.3f%s\n", ch.Name, ch.N, ch.Control, ch.Run, ch.Run-ch.Control, mark[ch.Shade])
	}
}
