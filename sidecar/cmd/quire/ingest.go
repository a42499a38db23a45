package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/ingest"
)

// cmdIngest turns web pages and files into notes: through the running
// sidecar when one serves the vault (its worker does the work and the
// events come over the websocket), else in this process. Either way it
// prints one line per step and exits non-zero if any source failed.
func cmdIngest(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("ingest", &c)
	resummarise := fs.Bool("resummarise", false, "read again with the model a source saved earlier without a summary")
	hosts := testHostsFlag(fs)
	pos, err := parse(fs, &c, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr("ingest: a URL or FILE is required")
	}
	sources := make([]string, len(pos))
	for i, p := range pos {
		sources[i] = p
		if !strings.Contains(p, "://") {
			if sources[i], err = filepath.Abs(p); err != nil {
				return err
			}
		}
	}
	out := newIngestPrinter(os.Stdout, len(sources))
	if r := attach(ctx, c); r != nil {
		defer r.close()
		return r.ingest(ctx, sources, *resummarise, out)
	}
	th, err := parseTestHosts(*hosts)
	if err != nil {
		return usageErr("--test-hosts: %v", err)
	}
	e, err := engine.Open(engine.Setup{Vault: c.vault, State: c.state, Queue: true, Fetch: th.client,
		Warn: func(w string) { fmt.Fprintln(os.Stderr, "quire: warning:", shown(w)) }, Engine: engine.Options{InboxPoll: -1}})
	if err != nil {
		return err
	}
	defer closeEngine(e)
	if _, err := e.Update(ctx); err != nil { // related pages come from an index that is up to date
		return err
	}
	if err := e.EnableDense(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "quire: warning: search by meaning is off:", shown(err.Error()))
	}
	defer e.Subscribe(func(ev engine.Event) {
		if ie, ok := ev.(*engine.IngestEvent); ok {
			out.event(ie.Event)
		}
	})()
	for _, src := range sources {
		it, _, err := e.AddSource(src, *resummarise)
		if err != nil {
			out.refused(src, err)
			continue
		}
		out.track(it.ID, src)
	}
	if out.waiting() > 0 {
		wctx, stop := context.WithCancel(ctx)
		go func() {
			select {
			case <-out.allDone:
			case <-ctx.Done():
			}
			stop()
		}()
		e.RunIngest(wctx) // returns once every tracked item is finished, or at a signal
		stop()
	}
	return out.result(ctx)
}

// ingest is cmdIngest through the sidecar.
func (r *remote) ingest(ctx context.Context, sources []string, resummarise bool, out *ingestPrinter) error {
	for _, src := range sources {
		id, err := r.r.AddSource(ctx, src, resummarise)
		if err != nil {
			var ee *engine.Error
			if !errors.As(err, &ee) {
				return fmt.Errorf("ingest through the sidecar (pid %d): %w", r.cf.PID, err)
			}
			out.refused(src, ee)
			continue
		}
		out.track(id, src)
	}
	for out.waiting() > 0 {
		select {
		case env, ok := <-r.c.Events():
			if !ok {
				return fmt.Errorf("the sidecar (pid %d) went away: %v", r.cf.PID, r.c.Err())
			}
			if ev, ok := client.IngestEvent(env); ok {
				out.event(ev)
			}
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "quire: stopped waiting; the sidecar goes on with the queue")
			return out.result(ctx)
		}
	}
	return out.result(ctx)
}

// ingestPrinter prints the progress of the sources one command ingests, the
// same lines whichever process does the work:
//
//	[1/2] https://example.org/a reading 3/8
//	[1/2] done → Quire/Sources/Title.md (dropped 2 quotes not in the source)
//	[2/2] failed: duplicate — already ingested as Quire/Sources/Title.md …
type ingestPrinter struct {
	w     io.Writer
	total int

	mu      sync.Mutex
	next    int
	index   map[uint64]int // item id → its number in this command
	open    map[uint64]bool
	failed  int
	last    map[uint64]string // last progress line, to skip repeats
	allDone chan struct{}
	closed  bool
}

func newIngestPrinter(w io.Writer, total int) *ingestPrinter {
	return &ingestPrinter{w: w, total: total, index: map[uint64]int{}, open: map[uint64]bool{}, last: map[uint64]string{}, allDone: make(chan struct{})}
}

func (p *ingestPrinter) prefix(n int) string { return fmt.Sprintf("[%d/%d]", n, p.total) }

// track starts following item id, the next source of the command.
func (p *ingestPrinter) track(id uint64, src string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	p.index[id] = p.next
	p.open[id] = true
	fmt.Fprintf(p.w, "%s %s queued\n", p.prefix(p.next), src)
}

// refused reports a source the queue would not take.
func (p *ingestPrinter) refused(src string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	p.failed++
	code, msg := "invalid", err.Error()
	var ee *engine.Error
	if errors.As(err, &ee) {
		code, msg = string(ee.Kind), strings.TrimPrefix(ee.Message, src+": ")
	}
	fmt.Fprintf(p.w, "%s %s\n%s failed: %s — %s\n", p.prefix(p.next), src, p.prefix(p.next), code, msg)
}

func (p *ingestPrinter) waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.open)
}

// event prints an ingest event about an item this command follows.
func (p *ingestPrinter) event(ev ingest.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var id uint64
	var line string
	finished, failed := false, false
	switch e := ev.(type) {
	case ingest.Progress:
		id = e.ID
		if e.Step == ingest.StepQueued {
			return // said when tracked
		}
		line = e.Source + " " + string(e.Step)
		if e.Total > 0 {
			line += fmt.Sprintf(" %d/%d", e.Index, e.Total)
		}
		if p.last[id] == line {
			return
		}
		p.last[id] = line
	case ingest.Done:
		id, finished = e.ID, true
		line = "done → " + e.Note
		var notes []string
		if !e.Summarised {
			notes = append(notes, "not summarised")
		}
		if e.Unread > 0 {
			notes = append(notes, fmt.Sprintf("%.0f%% not read", e.Unread*100))
		}
		if s := dropped(e.Dropped); s != "" {
			notes = append(notes, s)
		}
		if len(e.Review) > 0 {
			notes = append(notes, fmt.Sprintf("%d for review", len(e.Review)))
		}
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, "; ") + ")"
		}
	case ingest.Failed:
		id, finished, failed = e.ID, true, true
		line = "failed: " + string(e.Code) + " — " + e.Message
	default:
		return
	}
	n, ok := p.index[id]
	if !ok {
		return
	}
	fmt.Fprintln(p.w, p.prefix(n), line)
	if finished {
		if failed {
			p.failed++
		}
		delete(p.open, id)
		if len(p.open) == 0 && !p.closed {
			p.closed = true
			close(p.allDone)
		}
	}
}

// result is the command's outcome: an error when any source failed or the
// command was stopped before they finished.
func (p *ingestPrinter) result(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.open) > 0 && ctx.Err() != nil {
		return &exitError{code: 1, err: fmt.Errorf("stopped with %d of %d sources unfinished; they stay in the queue", len(p.open), p.total)}
	}
	if p.failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d sources failed", p.failed, p.total)}
	}
	return nil
}

// dropped reads like "dropped 2 quotes not in the source, 1 link to a page
// that does not exist".
func dropped(ds []ingest.Dropped) string {
	var parts []string
	for _, d := range ds {
		if d.Count == 0 {
			continue
		}
		what := d.What
		if d.Count != 1 {
			what += "s"
		}
		parts = append(parts, strings.TrimSpace(fmt.Sprintf("%d %s %s", d.Count, what, d.Reason)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "dropped " + strings.Join(parts, ", ")
}
