package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/eval"
)

// TestEvalLogsComparesReportsAndDecides runs quire eval twice on a real
// vault, under two names, and reads what the log, the comparison, the
// report and the decision say.
func TestEvalLogsComparesReportsAndDecides(t *testing.T) {
	v := writeVault(t)
	gold := filepath.Join(t.TempDir(), "mine.jsonl")
	os.WriteFile(gold, []byte(`{"question": "what curdles milk?", "expected": ["rennet.md"], "answer": "curdles milk", "type": "mine"}
{"question": "which cheese is soft?", "expected": ["brie.md"], "answer": "soft cheese", "type": "mine"}
`), 0o644)
	state := t.TempDir()
	runs := filepath.Join(t.TempDir(), "runs.jsonl")
	eval1 := func(args ...string) (string, error) {
		return runCLI(t, append([]string{"eval", "--vault", v, "--state", state, "--gold", gold, "--log", runs}, args...)...)
	}
	if out, err := eval1("--name", "before", "--channel", "bm25", "--rerank", "off"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := eval1("--name", "after", "--channel", "bm25", "--rerank", "builtin", "--control", "before")
	if err != nil || !strings.Contains(out, `against "before"`) || !regexp.MustCompile(`\nall +2 +1\.000 +1\.000 +\+0\.000\n`).MatchString(out) {
		t.Fatalf("comparison: %v\n%s", err, out)
	}
	log, err := eval.ReadLog(filepath.Join(state, "evals.jsonl"))
	if err != nil || len(log) != 2 {
		t.Fatalf("state log: %v, %d entries", err, len(log))
	}
	if copied, _ := eval.ReadLog(runs); len(copied) != 2 {
		t.Errorf("--log holds %d entries, want the same 2", len(copied))
	}
	e := log[1]
	hash, _ := eval.HashFile(gold)
	if e.Name != "after" || e.Set != "mine" || e.GoldHash != hash || e.Version == "" || e.Commit == "" ||
		e.Config.Rerank != "builtin" || e.Config.Markdown == "" || e.Config.Analysis == "" || e.Config.Fusion.Pool == 0 || e.Config.Fields.Title == 0 ||
		len(e.Report.Ranks) != 2 {
		t.Errorf("logged entry lacks what a comparison needs: %+v", e)
	}

	// Two questions resolve nothing finer than 5/2: the same recall may
	// not replace the control, and --decide says so with exit code 1.
	out, err = runCLI(t, "eval", "--log", runs, "--decide", "--control", "before", "--channel", "bm25")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(out, `"after" may not replace "before" on bm25`) {
		t.Errorf("decide: %v\n%s", err, out)
	}

	report := filepath.Join(t.TempDir(), "report.html")
	if out, err := runCLI(t, "eval", "--log", runs, "--report", report, "--control", "before"); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	page, _ := os.ReadFile(report)
	if strings.Count(string(page), "<svg ") != 3 || !strings.Contains(string(page), "which cheese is soft?") {
		t.Errorf("report lacks its pictures:\n%.400s", page)
	}
	// Written again over its own page, but never over a file it did not write.
	if _, err := runCLI(t, "eval", "--log", runs, "--report", report); err != nil {
		t.Errorf("report over an earlier report: %v", err)
	}
	mine := filepath.Join(t.TempDir(), "notes.html")
	os.WriteFile(mine, []byte("<p>my own page</p>"), 0o644)
	if _, err := runCLI(t, "eval", "--log", runs, "--report", mine); err == nil || !strings.Contains(err.Error(), "not a Quire eval report") {
		t.Errorf("report over someone's file: %v", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "<p>my own page</p>" {
		t.Errorf("someone's file was changed: %q", b)
	}
}
