package worker

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
)

// RunLogName is the run log's file name in the state folder.
const RunLogName = "runs.jsonl"

// Run is one line of runs.jsonl: one source ingested, or one note
// rebuilt, and how it went.
type Run struct {
	Time   time.Time `json:"time"` // when it ended
	Kind   string    `json:"kind"` // "ingest" or "reingest"
	Source string    `json:"source"`
	Note   string    `json:"note,omitempty"`
	// Outcome is done, failed or interrupted for an ingest, an Action*
	// for a rebuild.
	Outcome string `json:"outcome"`
	// Stop says why it stopped where it did: "finished", "call cap" (the
	// source was read in part), why it was not summarised, or the error.
	Stop         string  `json:"stop"`
	Summarised   bool    `json:"summarised"`
	Unread       float64 `json:"unread,omitempty"`
	Written      int     `json:"written"`
	Review       int     `json:"review"`
	Dropped      int     `json:"dropped"`
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"inputTokens"`
	OutputTokens int     `json:"outputTokens"`
	Model        string  `json:"model,omitempty"`
	Ms           float64 `json:"ms"`
}

// runOf is the log line of a compile that took since start.
func runOf(kind, source string, res compile.Result, model string, start time.Time) Run {
	r := Run{Time: time.Now().UTC(), Kind: kind, Source: source, Note: res.Note, Outcome: "done", Stop: "finished",
		Summarised: res.Summarised, Unread: res.Unread, Written: len(res.Written), Review: len(res.Review),
		Calls: res.Calls, InputTokens: res.InputTokens, OutputTokens: res.OutputTokens, Model: model,
		Ms: float64(time.Since(start).Microseconds()) / 1000}
	for _, d := range res.Dropped {
		r.Dropped += d.Count
	}
	switch {
	case res.Reason != "":
		r.Stop = res.Reason
	case res.Unread > 0:
		r.Stop = "call cap: " + strconv.Itoa(int(res.Unread*100+0.5)) + "% not read"
	}
	return r
}

// runLog appends runs to a JSON-lines file, one write per line.
type runLog struct {
	path string
	mu   sync.Mutex
}

func (l *runLog) add(r Run) error {
	if l == nil || l.path == "" {
		return nil
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("run log: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return fmt.Errorf("run log: %w", err)
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("run log: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("run log: %w", err)
	}
	return nil
}

// logRun appends r, logging a failure to write it.
func (w *Worker) logRun(r Run) {
	if err := w.runs.add(r); err != nil {
		w.opts.Log.Warn("ingest", "err", err)
	}
}

// failedRun is the log line of an item that failed or was interrupted.
func failedRun(kind string, it ingest.Item, outcome, stop string, start time.Time) Run {
	return Run{Time: time.Now().UTC(), Kind: kind, Source: it.Source, Outcome: outcome, Stop: stop,
		Ms: float64(time.Since(start).Microseconds()) / 1000}
}

// today regenerates the daily view, when the worker keeps one and the
// generated folder is Quire's (a folder of the user's is not adopted for
// it); a failure is logged.
func (w *Worker) today() {
	if !w.opts.Today {
		return
	}
	folder := w.folder()
	if compile.CheckOwned(w.opts.Vault, folder) != nil || !regular(w.opts.Vault, path.Join(folder, compile.OwnerFile)) {
		return
	}
	items, err := w.opts.Queue.List()
	if err == nil {
		var res compile.TodayResult
		res, err = compile.WriteToday(compile.TodayOptions{Vault: w.opts.Vault, Folder: folder, Items: items, Private: w.compileOptions().Private})
		if res.Warning != "" {
			w.opts.Log.Warn("daily view", "warning", res.Warning)
		}
	}
	if err != nil {
		w.opts.Log.Warn("daily view", "err", err)
	}
}
