package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"strings"
	"time"
	"unicode"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/ingest/fetch"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

// open opens the vault's engine for a command that works in this
// process. Someone waits on it, so its passes embed on every core
// (Foreground), unlike the sidecar's background ones.
func open(c common, queue bool, fetchWith func(fetch.Options) *fetch.Client) (*engine.Engine, error) {
	return engine.Open(engine.Setup{Vault: c.vault, State: c.state, Queue: queue, Fetch: fetchWith, Foreground: true,
		Warn: func(w string) { fmt.Fprintln(os.Stderr, "quire: warning:", shown(w)) }})
}

func closeEngine(e *engine.Engine) {
	if err := e.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "quire: close index:", err)
	}
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// progressPrinter draws a pass's progress for people on stderr, when it
// is a terminal: one line, rewritten at each report the index sends
// (which thins them) and ended with its phase; done ends a line left open
// by a pass that stopped. Elsewhere (a log) it prints nothing: the
// summary that follows says what the pass did.
func progressPrinter() (progress func(engine.Progress), done func()) {
	if fi, err := os.Stderr.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil, func() {}
	}
	var mu sync.Mutex // reports may come from another goroutine than done
	open, width := false, 0
	end := func() {
		mu.Lock()
		defer mu.Unlock()
		if open {
			fmt.Fprintln(os.Stderr)
			open, width = false, 0
		}
	}
	return func(p engine.Progress) {
		var line string
		switch p.Phase {
		case engine.PhaseIndex:
			line = fmt.Sprintf("indexing: %s/%s notes", thousands(p.Done), thousands(p.Total))
		case engine.PhaseEmbed:
			line = fmt.Sprintf("vectors: %s/%s passages", thousands(p.Done), thousands(p.Total))
			if p.PerSecond > 0 {
				line += ", " + timeLeft(p.Left)
			}
		default:
			return
		}
		mu.Lock()
		// Padded over the longer line it replaces: no terminal escape
		// (an older Windows console prints them as they are).
		width = max(width, len(line))
		fmt.Fprintf(os.Stderr, "\r%-*s", width, line)
		open = true
		mu.Unlock()
		if p.Done >= p.Total {
			end()
		}
	}, end
}

// timeLeft words an estimate of the time left, rounded as a person would
// say it: "about 40 s left", "about 7 min left", "about 2 h 5 min left".
func timeLeft(d time.Duration) string {
	if s := d.Round(time.Second); s < time.Second {
		return "almost done"
	} else if s < time.Minute {
		return fmt.Sprintf("about %d s left", s/time.Second)
	}
	m := d.Round(time.Minute)
	switch {
	case m < time.Hour:
		return fmt.Sprintf("about %d min left", m/time.Minute)
	case m%time.Hour == 0:
		return fmt.Sprintf("about %d h left", m/time.Hour)
	}
	return fmt.Sprintf("about %d h %d min left", m/time.Hour, m%time.Hour/time.Minute)
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// printPass says what a Reindex did.
func printPass(r engine.Reindexed) {
	st := r.Stats
	fmt.Fprintf(os.Stderr, "Indexed %s notes (%s changed, %s removed), %s chunks, %s skipped in %s.\n",
		thousands(st.Notes), thousands(st.Changed), thousands(st.Removed), thousands(st.Chunks),
		thousands(len(st.Skipped)), r.Took.Round(time.Millisecond))
	if r.Vectors.Embedder != "" {
		fmt.Fprintf(os.Stderr, "Vectors: %s/%s chunks (%s).\n", thousands(r.Vectors.Embedded), thousands(r.Vectors.Passages), r.Vectors.Embedder)
	}
}

func warnSkips(st index.Stats) {
	for _, s := range st.Skipped {
		fmt.Fprintf(os.Stderr, "quire: skipped %s: %s\n", s.Path, s.Reason)
	}
	for _, s := range st.Warnings {
		fmt.Fprintf(os.Stderr, "quire: warning: %s: %s\n", shown(s.Path), shown(s.Reason))
	}
}

func cmdIndex(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("index", &c)
	rebuild := fs.Bool("rebuild", false, "read every note again, not only the changed ones (through the running sidecar too)")
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	// A sidecar holding the vault keeps its index current: quire index
	// then reports its counts, or asks it to rebuild, instead of being
	// refused the lock with no word on how to reindex.
	if rm := attach(ctx, c); rm != nil {
		defer rm.close()
		progress, done := progressPrinter()
		r, err := rm.r.Reindex(ctx, *rebuild, progress)
		done()
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "quire: %s\n", r.Note)
		return printIndexed(c, r)
	}
	e, err := open(c, false, nil)
	if err != nil {
		return err
	}
	defer closeEngine(e)
	if err := e.EnableDense(ctx); err != nil {
		return err
	}
	progress, done := progressPrinter()
	r, err := e.Reindex(ctx, *rebuild, progress)
	done()
	warnSkips(r.Stats)
	if err != nil {
		return err
	}
	if err := printIndexed(c, r); err != nil {
		return err
	}
	// The vault is indexed; a source that failed keeps what the index
	// held of it, and quire sources names its error.
	return r.SourcesErr
}

// printIndexed says what a reindex did, here or in the sidecar.
func printIndexed(c common, r engine.Reindexed) error {
	if r.VectorsErr != nil {
		return r.VectorsErr
	}
	printPass(r)
	if c.json {
		return printJSON(struct {
			index.Stats
			Vectors index.DenseStats `json:"vectors"`
		}{r.Stats, r.Vectors})
	}
	return nil
}

// reader is what a command reads: the engine in this process, or a
// running sidecar through its client.
type reader interface {
	Status(ctx context.Context) (engine.Status, error)
	Search(ctx context.Context, q engine.Query) (search.Result, error)
	Ask(ctx context.Context, q engine.Question, onDelta func(string)) (ask.Answer, error)
	// SaveAnswer saves the answer the last Ask gave as a note.
	SaveAnswer(ans ask.Answer) (string, error)
	Explain(query string) string
}

// openVault returns the running sidecar when one serves the vault (it
// holds the index's lock), else the engine opened here; dense enables
// search by meaning in process. A keyword search leaves it off even when
// vectors exist: loading the embedder was most of a one-shot search's
// start-up. The index is read as `quire index` or the sidecar last left
// it: walking the vault to bring it up to date cost a one-shot search of
// a 20,000-note vault ten times its search; an index never built, or
// built under another configuration, is brought up to date first. done
// releases it.
func openVault(ctx context.Context, c common, dense bool) (v reader, via string, done func(), err error) {
	if r := attach(ctx, c); r != nil {
		return r.r, fmt.Sprintf("the sidecar (pid %d)", r.cf.PID), r.close, nil
	}
	e, err := open(c, false, nil)
	if err != nil {
		return nil, "", nil, err
	}
	if !e.Indexed() {
		if _, err := e.Update(ctx); err != nil {
			closeEngine(e)
			return nil, "", nil, err
		}
	}
	if dense {
		if err := e.EnableDense(ctx); err != nil {
			closeEngine(e)
			return nil, "", nil, err
		}
	}
	return e, "", func() { closeEngine(e) }, nil
}

func cmdSearch(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("search", &c)
	k := fs.Int("k", 0, "number of passages (default from config, 10)")
	channel := fs.String("channel", "", "bm25, dense or hybrid (default: hybrid once vectors exist, as in the plugin, ask and MCP)")
	explain := fs.Bool("explain", false, "show the query's language and the translations used")
	pos, err := parse(fs, &c, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return usageErr("search: a QUERY is required")
	}
	// No channel is the engine's default, the one every front end uses:
	// hybrid once vectors exist, keywords before.
	var ch search.Channel
	if *channel != "" {
		if ch, err = search.ParseChannel(*channel); err != nil {
			return usageErr("--channel: %v", err)
		}
	}
	v, via, done, err := openVault(ctx, c, ch != search.BM25)
	if err != nil {
		return err
	}
	defer done()
	if e, ok := v.(*engine.Engine); ok && ch != search.BM25 {
		if ds := e.Vectors(); ds.Embedder != "" && ds.Coverage() < 1 {
			fmt.Fprintf(os.Stderr, "quire: vectors cover %d of %d passages; run `quire index` to finish them\n", ds.Embedded, ds.Passages)
		}
	}
	if *explain {
		fmt.Fprint(os.Stderr, v.Explain(query))
	}
	began := time.Now()
	res, err := v.Search(ctx, engine.Query{Text: query, K: *k, Channel: ch, Strict: via == ""})
	if err != nil {
		if via != "" {
			return fmt.Errorf("search through %s: %w", via, err)
		}
		return err
	}
	return printSearch(c, query, res, time.Since(began))
}

// printSearch prints a search's result, whether it was answered in process
// or by a running sidecar.
func printSearch(c common, query string, res search.Result, took time.Duration) error {
	if res.Warning != "" {
		fmt.Fprintln(os.Stderr, "quire: warning:", shown(res.Warning))
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
		fmt.Printf("%d. %s  (%.2f)\n   %s\n   %s\n\n", i+1, p.Path, p.Score, p.Place(), snippet(p.Text, 240))
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
	Embedding   *embeddingOut     `json:"embedding,omitempty"`
	Model       *modelOut         `json:"model,omitempty"`
}

// embeddingOut is the embedding running now: passages per second of wall
// time and the seconds the rest would take at that rate (an estimate).
type embeddingOut struct {
	PerSecond   float64 `json:"perSecond"`
	SecondsLeft float64 `json:"secondsLeft"`
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
	e, err := open(c, false, nil)
	if err != nil {
		return err
	}
	defer closeEngine(e)
	if e.HasVectors() {
		if err := e.EnableDense(ctx); err != nil {
			return err
		}
	}
	st, err := e.Status(ctx)
	if err != nil {
		return err
	}
	out := toStatusOut(c, e.State(), st)
	out.Model = modelStatus(e.Config())
	if c.json {
		return printJSON(out)
	}
	out.print("")
	return nil
}

func toStatusOut(c common, stateDir string, st engine.Status) statusOut {
	out := statusOut{Vault: c.vault, State: stateDir, Notes: st.Notes, Chunks: st.Chunks, Fingerprint: st.Fingerprint,
		Skipped: st.Skipped, Warnings: st.Warnings, Languages: st.Languages}
	if !st.LastIndexed.IsZero() {
		out.LastIndex = &st.LastIndexed
	}
	if st.Vectors.Embedder != "" {
		v := st.Vectors
		out.Vectors = &v
	}
	if p := st.Embedding; p != nil && p.PerSecond > 0 {
		out.Embedding = &embeddingOut{PerSecond: p.PerSecond, SecondsLeft: p.Left.Seconds()}
	}
	return out
}

// print writes status for people; sidecar, when not empty, says which
// running sidecar answered.
func (out statusOut) print(sidecar string) {
	last := "never"
	if out.LastIndex != nil {
		last = out.LastIndex.Local().Format("2006-01-02 15:04:05")
	}
	fmt.Printf("Vault:   %s\nState:   %s\nNotes:   %d (%d chunks)\nIndexed: %s\nIndex:   %s\n", shown(out.Vault), shown(out.State), out.Notes, out.Chunks, last, shown(out.Fingerprint))
	if v := out.Vectors; v != nil {
		fmt.Printf("Vectors: %d/%d chunks (%.0f%%), %s", v.Embedded, v.Passages, 100*v.Coverage(), shown(v.Embedder))
		if e := out.Embedding; e != nil {
			fmt.Printf("; embedding %.1f passages/s, %s", e.PerSecond, timeLeft(time.Duration(e.SecondsLeft*float64(time.Second))))
		}
		fmt.Println()
	}
	if sidecar != "" {
		fmt.Println("Sidecar:", sidecar)
	}
	if m := out.Model; m != nil {
		where := "on this machine"
		if m.Remote {
			where = "NOT on this machine: passages of your notes are sent there (folders under `private:` never are)"
		}
		fmt.Printf("Model:   %s %s at %s, %s\n", shown(m.Provider), shown(m.Model), shown(m.Endpoint), where)
	}
	if len(out.Skipped) > 0 {
		fmt.Printf("Skipped: %d\n", len(out.Skipped))
		for _, s := range out.Skipped {
			fmt.Printf("  %s: %s\n", shown(s.Path), shown(s.Reason))
		}
	}
	for _, w := range out.Warnings {
		fmt.Printf("Warning: %s: %s\n", shown(w.Path), shown(w.Reason))
	}
}

// shown makes a config string or a path safe to print on a terminal: a
// control or format character (a newline in a model name, an escape
// sequence, a bidi override) is written as its Go escape, so it can
// neither forge a line of the status nor drive the terminal.
func shown(s string) string {
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			q := strconv.Quote(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}
