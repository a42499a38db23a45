package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// TestAskExtractiveOnBenchCorpus asks a dev-set question of the benchmark
// corpus with no model configured: the answer is extracted, cites the gold
// note, and is logged.
func TestAskExtractiveOnBenchCorpus(t *testing.T) {
	sh := shared(t)
	bench := filepath.Join(sh, "bench", "ariostea-wiki")
	data, err := os.ReadFile(filepath.Join(bench, "dev", "gold.dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gold []struct {
		Query         string   `json:"query"`
		ExpectedNotes []string `json:"expected_notes"`
	}
	if err := json.Unmarshal(data, &gold); err != nil {
		t.Fatal(err)
	}
	const question = "What type of bacteria is used in Swiss cheese to create holes?"
	want := ""
	for _, g := range gold {
		if g.Query == question {
			want = g.ExpectedNotes[0]
		}
	}
	if want == "" {
		t.Fatalf("the dev set no longer has %q", question)
	}
	state := t.TempDir()
	out, err := runCLI(t, "ask", "--json", "--vault", filepath.Join(bench, "corpus"), "--state", state, question)
	if err != nil {
		t.Fatal(err)
	}
	var done proto.AskDone
	if err := json.Unmarshal([]byte(out), &done); err != nil {
		t.Fatalf("ask --json printed %q: %v", out, err)
	}
	if !done.Extracted || !done.Grounded || done.Model != "" || !strings.Contains(done.Warning, "no model configured") {
		t.Errorf("extracted %v grounded %v model %q warning %q, want an extracted answer saying no model is configured",
			done.Extracted, done.Grounded, done.Model, done.Warning)
	}
	cited := false
	for _, c := range done.Citations {
		cited = cited || c.Path == want
		if !strings.Contains(done.Answer, "["+strconv.Itoa(c.Number)+"]") || c.Hash == "" || c.End <= c.Start {
			t.Errorf("citation %+v is not in the answer or lacks its range and hash", c)
		}
	}
	if !cited {
		t.Errorf("no citation of the gold note %s in %+v", want, done.Citations)
	}
	log, err := os.ReadFile(filepath.Join(state, "asks.jsonl"))
	if err != nil || !strings.Contains(string(log), question) {
		t.Errorf("asks.jsonl: %q, %v", log, err)
	}
}

// TestAskWithModel runs ask against a fake model named in config.yaml and
// prints the checked answer with its sources.
func TestAskWithModel(t *testing.T) {
	v := writeVault(t)
	srv := llmtest.New(t)
	srv.SetDefault(llmtest.Reply{Text: `{"answer": "Rennet curdles milk [1][7].", "citations": [1, 7], "quotes": [], "notFound": false}`})
	state := filepath.Join(v, ".quire")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "model:\n  provider: openai\n  endpoint: " + srv.URL + "\n  model: fake\n  timeout: 5s\n"
	if err := os.WriteFile(filepath.Join(state, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "ask", "--vault", v, "--save", "what", "does", "rennet", "do?")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Rennet curdles milk [1].", "Sources:", "[1] Rennet  (rennet.md", "1 invented citation(s) removed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[7]") {
		t.Errorf("the invented [7] was printed:\n%s", out)
	}
	note, err := os.ReadFile(filepath.Join(v, "Quire", "Answers", "what does rennet do.md"))
	if err != nil || !strings.Contains(string(note), "[1] [[rennet|Rennet]]") {
		t.Errorf("saved note: %q, %v", note, err)
	}
}

// TestAskThroughSidecar: while a sidecar serves the vault (and holds its
// lock), quire ask answers through it instead of failing on the lock, and
// --save has the sidecar save that answer as a note.
func TestAskThroughSidecar(t *testing.T) {
	v := writeVault(t)
	st := t.TempDir()
	keywordsOnly(t, st)
	c := startQuire(t, "serve", "--vault", v, "--state", st, "--port", "0")
	cl, _ := attachTo(t, c, st)
	waitIdle(t, cl, 20*time.Second)
	out, err := runCLI(t, "ask", "--json", "--save", "--vault", v, "--state", st, "What curdles milk?")
	if err != nil {
		t.Fatalf("ask beside a sidecar: %v\n%s", err, out)
	}
	var done proto.AskDone
	if err := json.Unmarshal([]byte(out), &done); err != nil {
		t.Fatalf("ask --json printed %q: %v", out, err)
	}
	if len(done.Citations) == 0 || done.Citations[0].Path != "rennet.md" {
		t.Errorf("answer through the sidecar: %+v, want rennet.md cited", done)
	}
	saved, _ := filepath.Glob(filepath.Join(v, "Quire", "Answers", "*.md"))
	if len(saved) != 1 {
		t.Errorf("saved answers: %v, want one note in Quire/Answers", saved)
	}
}

// TestAskScopeFlags: --folder and --tag narrow the sources the answer is
// built from.
func TestAskScopeFlags(t *testing.T) {
	v := writeVault(t)
	if err := os.MkdirAll(filepath.Join(v, "Dairy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v, "Dairy", "Ricotta.md"), []byte("# Ricotta\n\nLemon juice curdles hot milk into soft curds. #fresh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--folder", "Dairy"}, {"--tag", "#fresh"}} {
		cmd := append([]string{"ask", "--json", "--vault", v, "--state", t.TempDir()}, args...)
		out, err := runCLI(t, append(cmd, "What curdles milk?")...)
		if err != nil {
			t.Fatalf("ask %v: %v\n%s", args, err, out)
		}
		var done proto.AskDone
		if err := json.Unmarshal([]byte(out), &done); err != nil {
			t.Fatalf("ask --json printed %q: %v", out, err)
		}
		if len(done.Citations) == 0 {
			t.Errorf("ask %v: %+v, want Dairy/Ricotta.md cited", args, done)
		}
		for _, c := range done.Citations {
			if c.Path != "Dairy/Ricotta.md" {
				t.Errorf("ask %v cites %s, outside the scope", args, c.Path)
			}
		}
	}
}
