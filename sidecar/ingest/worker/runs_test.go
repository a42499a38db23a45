package worker

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
)

// TestRunLog: every item finished leaves a line in runs.jsonl: what it
// wrote, the model's calls and tokens, the time and why it stopped; and
// the daily view says what was ingested and what failed today.
func TestRunLog(t *testing.T) {
	m := newScripted(t)
	log := filepath.Join(t.TempDir(), RunLogName)
	r := newRig(t, withCompiler(m), func(o *Options, _ *rig) { o.RunLog, o.Today = log, true })
	r.w.compile = compile.Compile
	r.site.serve("/soil", "text/html; charset=utf-8", e2eArticle())
	r.run()
	wantDone(t, r.ev.finished(t, r.add("http://site.example/soil").ID))
	wantFailed(t, r.ev.finished(t, r.add("http://site.example/missing").ID), ingest.FailFetch, "404")
	r.halt()

	view, err := os.ReadFile(filepath.Join(r.vault, "Quire", "Today.md"))
	if err != nil || !strings.Contains(string(view), "[[Quire/Sources/") || !strings.Contains(string(view), "http://site.example/missing — ") {
		t.Errorf("daily view: %v\n%s", err, view)
	}

	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []Run
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var run Run
		if err := json.Unmarshal(sc.Bytes(), &run); err != nil {
			t.Fatalf("%v in %s", err, sc.Text())
		}
		runs = append(runs, run)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs logged, want 2: %+v", len(runs), runs)
	}
	done, failed := runs[0], runs[1]
	if done.Kind != "ingest" || done.Outcome != "done" || done.Stop != "finished" || !done.Summarised || done.Note == "" ||
		done.Written < 3 || done.Calls != int(m.calls.Load()) || done.InputTokens == 0 || done.OutputTokens == 0 || done.Model != "fake" || done.Ms <= 0 {
		t.Errorf("run of the page: %+v (%d model calls)", done, m.calls.Load())
	}
	if failed.Outcome != "failed" || !strings.Contains(failed.Stop, "fetch_failed") || !strings.Contains(failed.Stop, "404") || failed.Calls != 0 {
		t.Errorf("run of the missing page: %+v", failed)
	}
}
