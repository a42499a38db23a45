package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/eval"
	"github.com/quire-app/quire/sidecar/internal/secondbrain"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// runCLI runs the command line in-process and returns what it printed.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	runErr := run(context.Background(), args)
	w.Close()
	os.Stdout = old
	return <-done, runErr
}

// TestVersionJSON checks what the plugin reads before it starts an engine:
// `quire version --json` names the release and the protocol range.
func TestVersionJSON(t *testing.T) {
	out, err := runCLI(t, "version", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Version     string `json:"version"`
		Protocol    int    `json:"protocol"`
		MinProtocol int    `json:"minProtocol"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if v.Version == "" || v.Protocol != proto.Version || v.MinProtocol != proto.MinVersion {
		t.Errorf("version --json = %s, want a version and protocol %d-%d", out, proto.MinVersion, proto.Version)
	}
}

// shared finds the read-only shared folder beside the repository.
func shared(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("QUIRE_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "bench", "ariostea-wiki", "dev", "gold.dev.json")); err != nil {
		t.Skipf("no benchmark corpus at %s (set QUIRE_SHARED)", dir)
	}
	return dir
}

// TestEvalOnBenchCorpus holds the keyword channel to the figure the
// foundation issue promises on the dev set, with every span reachable.
func TestEvalOnBenchCorpus(t *testing.T) {
	sh := shared(t)
	out, err := runCLI(t, "eval", "--json", "--channel", "bm25",
		"--vault", filepath.Join(sh, "bench", "ariostea-wiki", "corpus"),
		"--gold", filepath.Join(sh, "bench", "ariostea-wiki", "dev", "gold.dev.json"),
		"--state", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json printed %q: %v", out, err)
	}
	for _, k := range []string{"k", "queries", "reachable", "span_recall_at_k", "span_mrr", "note_recall_at_k", "ndcg_at_k", "median_query_ms", "by_type"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("eval --json lacks %q", k)
		}
	}
	if rep["reachable"] != rep["queries"] {
		t.Errorf("reachable %v of %v questions: a passage boundary cuts a span", rep["reachable"], rep["queries"])
	}
	if r, _ := rep["span_recall_at_k"].(float64); r < 0.50 {
		t.Errorf("BM25 span recall@5 = %.3f, want at least 0.50", r)
	}
	t.Logf("span recall@5 %.3f, MRR %.3f, note recall@5 %.3f", rep["span_recall_at_k"], rep["span_mrr"], rep["note_recall_at_k"])
}

func writeVault(t *testing.T) string {
	t.Helper()
	v := t.TempDir()
	os.WriteFile(filepath.Join(v, "rennet.md"), []byte("# Rennet\n\nRennet curdles milk into curds and whey.\n"), 0o644)
	os.WriteFile(filepath.Join(v, "brie.md"), []byte("# Brie\n\nBrie is a soft cheese.\n"), 0o644)
	return v
}

func TestSearchJSON(t *testing.T) {
	v := writeVault(t)
	out, err := runCLI(t, "search", "--vault", v, "--json", "curdles", "milk", "--k", "3")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Query    string
		Passages []struct {
			Path        string
			HeadingPath []string
			Text        string
			Start, End  int
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if res.Query != "curdles milk" || len(res.Passages) != 1 || res.Passages[0].Path != "rennet.md" || res.Passages[0].HeadingPath == nil || len(res.Passages[0].HeadingPath) != 0 {
		t.Errorf("got %+v", res)
	}
}

func TestCLIErrorsNameTheCulprit(t *testing.T) {
	v := writeVault(t)
	// A vault whose config turns search by meaning off.
	off := writeVault(t)
	os.MkdirAll(filepath.Join(off, ".quire"), 0o700)
	os.WriteFile(filepath.Join(off, ".quire", "config.yaml"), []byte("dense:\n  embedder: none\n"), 0o644)
	tests := []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"search", "cheese"}, "--vault is required", true},
		{[]string{"search", "--vault", v}, "QUERY is required", true},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`, true},
		{[]string{"search", "--vault", v, "--channel", "magic", "x"}, `unknown channel "magic"`, true},
		{[]string{"eval", "--vault", v, "--gold", filepath.Join(v, "nope.json")}, "nope.json", false},
		{[]string{"search", "--vault", filepath.Join(v, "missing"), "x"}, "missing", false},
		{[]string{"search", "--vault", off, "--channel", "dense", "x"}, "--channel bm25", false},
		{[]string{"search", "--vault", v, "--channel", "hybrid", "--k", "x"}, "invalid value", true},
	}
	for _, tt := range tests {
		_, err := runCLI(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want it to mention %q", tt.args, err, tt.want)
			continue
		}
		var ee *exitError
		if isUsage := errors.As(err, &ee) && ee.code == 2; isUsage != tt.usage {
			t.Errorf("%v: usage error = %v, want %v", tt.args, isUsage, tt.usage)
		}
	}
}

func TestStatusAfterIndex(t *testing.T) {
	v := writeVault(t)
	os.WriteFile(filepath.Join(v, "bin.md"), []byte{0, 1, 2}, 0o644)
	if _, err := runCLI(t, "index", "--vault", v); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "status", "--vault", v, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st statusOut
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.Notes != 2 || st.Chunks != 2 || st.LastIndex == nil || len(st.Skipped) != 1 || st.Skipped[0].Path != "bin.md" {
		t.Errorf("status = %+v", st)
	}
}

// TestHybridOnBenchCorpus embeds the corpus with the built-in model (a
// couple of minutes on two cores) and holds the hybrid to the dense
// issue's promise: on every question type at least as good as the better
// single channel.
func TestHybridOnBenchCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds the whole corpus")
	}
	sh := shared(t)
	st := t.TempDir()
	recall := map[string]map[string]float64{}
	for _, ch := range []string{"bm25", "dense", "hybrid"} {
		out, err := runCLI(t, "eval", "--json", "--channel", ch,
			"--vault", filepath.Join(sh, "bench", "ariostea-wiki", "corpus"),
			"--gold", filepath.Join(sh, "bench", "ariostea-wiki", "dev", "gold.dev.json"),
			"--state", st)
		if err != nil {
			t.Fatalf("%s: %v", ch, err)
		}
		var rep struct {
			Recall float64 `json:"span_recall_at_k"`
			ByType map[string]struct {
				Recall float64 `json:"span_recall_at_k"`
			} `json:"by_type"`
			Dense *struct {
				Coverage float64 `json:"coverage"`
			} `json:"dense"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		recall[ch] = map[string]float64{"all": rep.Recall}
		for typ, m := range rep.ByType {
			recall[ch][typ] = m.Recall
		}
		if ch != "bm25" && (rep.Dense == nil || rep.Dense.Coverage != 1) {
			t.Errorf("%s: dense info %+v, want full coverage", ch, rep.Dense)
		}
	}
	t.Logf("span recall@5: %v", recall)
	for typ, h := range recall["hybrid"] {
		if best := max(recall["bm25"][typ], recall["dense"][typ]); h < best {
			t.Errorf("%s: hybrid %.3f below the better single channel %.3f", typ, h, best)
		}
	}
}

// Translation adds words; it must never push a user's own-language note
// below a note in another language.
func TestItalianQuestionFindsItalianNote(t *testing.T) {
	v := t.TempDir()
	os.WriteFile(filepath.Join(v, "pasta-fresca.md"), []byte("---\nlang: it\n---\n# Pasta fresca\n\nPer quattro persone servono 400 grammi di farina e quattro uova. Si impasta a mano per dieci minuti.\n"), 0o644)
	os.WriteFile(filepath.Join(v, "fresh-pasta.md"), []byte("---\nlang: en\n---\n# Fresh pasta\n\nFresh egg pasta needs flour and eggs, kneaded by hand until smooth, then rested.\n"), 0o644)
	os.WriteFile(filepath.Join(v, "bread.md"), []byte("---\nlang: en\n---\n# Bread\n\nBread flour has more protein than pasta flour.\n"), 0o644)
	out, err := runCLI(t, "search", "--vault", v, "--json", "--channel", "bm25", "quanta farina serve per la pasta fresca?")
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Passages []struct{ Path string } }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Passages) < 2 || res.Passages[0].Path != "pasta-fresca.md" {
		t.Fatalf("got %+v, want the Italian note first", res.Passages)
	}
	if res.Passages[1].Path != "fresh-pasta.md" {
		t.Errorf("got %+v, want the English note second, found through translation", res.Passages)
	}
}

// An embedding model on a server (here a fake speaking Ollama's API) gets
// passages and queries with the prefixes the model was trained with; when
// the server is down, indexing still succeeds with a warning.
func TestModelEmbedder(t *testing.T) {
	fake := llmtest.New(t)
	// Embeddings by shared words, so the vault's dense floor (measured
	// with made-up words) has a meaning to keep rennet.md above it.
	fake.SetDims(64)
	fake.SetResponder(func(r llmtest.Request) llmtest.Reply {
		vecs := make([][]float32, len(r.Input))
		for i, in := range r.Input {
			_, text, _ := strings.Cut(in, ": ")
			vecs[i] = llmtest.Words(text, 64)
		}
		return llmtest.Reply{Embeddings: vecs}
	})
	v := writeVault(t)
	cfg := "model:\n  provider: ollama\n  endpoint: " + fake.URL + "\n  embed_model: nomic-embed-text\ndense:\n  embedder: model\n"
	os.MkdirAll(filepath.Join(v, ".quire"), 0o700)
	os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte(cfg), 0o644)
	if _, err := runCLI(t, "index", "--vault", v); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "search", "--vault", v, "--channel", "dense", "--json", "curdles")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "rennet.md") {
		t.Errorf("dense search with the model embedder: %s", out)
	}
	var doc, query bool
	for _, r := range fake.Requests() {
		for _, in := range r.Input {
			doc = doc || strings.HasPrefix(in, "search_document: ") && strings.Contains(in, "Rennet")
			query = query || in == "search_query: curdles"
		}
	}
	if !doc || !query {
		t.Errorf("prefixes: documents %v, query %v; want both", doc, query)
	}
	// With no channel named, search is hybrid once vectors exist, as in
	// the plugin, ask and MCP (issue 25).
	out, err = runCLI(t, "search", "--vault", v, "--json", "curdles")
	if err != nil || !strings.Contains(out, "rennet.md") || !strings.Contains(out, `"channel": "hybrid"`) {
		t.Fatalf("default search: %v, want hybrid\n%s", err, out)
	}
	// A keyword search does not load the embedder, though vectors exist:
	// loading it was most of a one-shot search's start-up (its probe is
	// the request this would see).
	before := len(fake.Requests())
	if out, err := runCLI(t, "search", "--vault", v, "--channel", "bm25", "--json", "curdles"); err != nil || !strings.Contains(out, "rennet.md") {
		t.Fatalf("keyword search: %v\n%s", err, out)
	}
	if n := len(fake.Requests()) - before; n != 0 {
		t.Errorf("a keyword search sent %d request(s) to the embedding model", n)
	}
	fake.Close()
	os.WriteFile(filepath.Join(v, "new.md"), []byte("# New\n\nwhey\n"), 0o644)
	if _, err := runCLI(t, "index", "--vault", v); err != nil {
		t.Errorf("index with the embedder down: %v, want keyword index and a warning", err)
	}
}

func TestDoctor(t *testing.T) {
	fake := llmtest.New(t)
	fake.SetModels("qwen", "bge-m3")
	fake.Push(llmtest.Reply{Text: "ok"})
	v := writeVault(t)
	os.MkdirAll(filepath.Join(v, ".quire"), 0o700)
	write := func(cfg string) {
		os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte(cfg), 0o644)
	}
	write("model:\n  provider: ollama\n  endpoint: " + fake.URL + "\n  model: qwen\n")
	if out, err := runCLI(t, "doctor", "--vault", v); err != nil || !strings.Contains(out, "ok") {
		t.Errorf("doctor with a working model: %v\n%s", err, out)
	}
	write("model:\n  provider: ollama\n  endpoint: " + fake.URL + "\n  model: missing-model\n")
	out, err := runCLI(t, "doctor", "--vault", v)
	if err == nil || !strings.Contains(out, "ollama pull missing-model") {
		t.Errorf("doctor with a model not pulled: err %v, want a failure saying how to pull it:\n%s", err, out)
	}
}

// TestDoctorReranker: doctor sends the configured reranker a tiny request
// and fails, saying why, when it does not answer.
func TestDoctorReranker(t *testing.T) {
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/rerank" {
			http.Error(w, "not here", http.StatusNotFound)
			return
		}
		w.Write([]byte(`[{"index": 1, "score": 0.2}, {"index": 0, "score": 0.9}]`))
	}))
	defer fake.Close()
	v := writeVault(t)
	os.MkdirAll(filepath.Join(v, ".quire"), 0o700)
	write := func(cfg string) {
		os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte(cfg), 0o644)
	}
	write("rerank:\n  provider: tei\n  endpoint: " + fake.URL + "\n")
	if out, err := runCLI(t, "doctor", "--vault", v); err != nil || !strings.Contains(out, "ok   reranker: tei at "+fake.URL+"/rerank, on this machine: scored 2 texts") {
		t.Errorf("doctor with a working reranker: %v\n%s", err, out)
	}
	write("rerank:\n  provider: llamacpp\n  endpoint: " + fake.URL + "\n  remote: \"true\"\n")
	out, err := runCLI(t, "doctor", "--vault", v)
	if err == nil || !strings.Contains(out, "FAIL reranker: rerank "+fake.URL+"/v1/rerank: status 404: not here") ||
		!strings.Contains(out, "note: the reranker at "+fake.URL+" is not on this machine") {
		t.Errorf("doctor with a reranker that is not there: err %v, want a failure naming it:\n%s", err, out)
	}
}

func TestStatusSaysWhenNotesLeaveTheMachine(t *testing.T) {
	v := writeVault(t)
	os.MkdirAll(filepath.Join(v, ".quire"), 0o700)
	os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte("dense:\n  embedder: none\nmodel:\n  provider: openai\n  endpoint: https://api.example.com\n  model: big\n"), 0o644)
	out, err := runCLI(t, "status", "--vault", v)
	if err != nil || !strings.Contains(out, "NOT on this machine") {
		t.Errorf("status with a remote model: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte("dense:\n  embedder: none\nmodel:\n  provider: ollama\n  model: small\n"), 0o644)
	if out, _ := runCLI(t, "status", "--vault", v); !strings.Contains(out, "on this machine") || strings.Contains(out, "NOT") {
		t.Errorf("status with a local model:\n%s", out)
	}
}

// quire eval --rewrite measures the optional query rewrite with the
// configured model (here a fake that adds a word the note uses).
func TestEvalRewrite(t *testing.T) {
	fake := llmtest.New(t)
	fake.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: `{"terms": ["curdles"]}`} })
	v := writeVault(t)
	os.MkdirAll(filepath.Join(v, ".quire"), 0o700)
	os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte("dense:\n  embedder: none\nmodel:\n  provider: openai\n  endpoint: "+fake.URL+"\n  model: fake\n"), 0o644)
	gold := filepath.Join(t.TempDir(), "gold.jsonl")
	os.WriteFile(gold, []byte(`{"question": "which enzyme coagulates", "expected": ["rennet.md"], "answer": "Rennet curdles milk"}`+"\n"), 0o644)
	plain, err := runCLI(t, "eval", "--vault", v, "--gold", gold, "--json", "--channel", "bm25")
	if err != nil {
		t.Fatal(err)
	}
	rewritten, err := runCLI(t, "eval", "--vault", v, "--gold", gold, "--json", "--channel", "bm25", "--rewrite")
	if err != nil {
		t.Fatal(err)
	}
	var a, b struct {
		Recall float64 `json:"span_recall_at_k"`
	}
	json.Unmarshal([]byte(plain), &a)
	json.Unmarshal([]byte(rewritten), &b)
	if a.Recall != 0 || b.Recall != 1 {
		t.Errorf("span recall without rewrite %v, with %v; want 0 and 1", a.Recall, b.Recall)
	}
}

// TestStatusShowsControlsEscaped: a model name with a newline (or an
// escape sequence) in config.yaml cannot forge a line of `quire status`.
func TestStatusShowsControlsEscaped(t *testing.T) {
	v := writeVault(t)
	os.MkdirAll(filepath.Join(v, ".quire"), 0o700)
	os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte("dense:\n  embedder: none\nmodel:\n  provider: ollama\n  model: \"small\\nNotes:   999 (forged)\\e[2J\"\n"), 0o644)
	out, err := runCLI(t, "status", "--vault", v)
	if err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	if strings.Contains(out, "\nNotes:   999") || strings.Contains(out, "\x1b") {
		t.Errorf("status printed the model name raw:\n%s", out)
	}
	if !strings.Contains(out, `small\nNotes:   999 (forged)\x1b[2J`) {
		t.Errorf("status lacks the escaped model name:\n%s", out)
	}
}

// TestDoctorShowsControlsEscaped: doctor prints config values (and what
// the server answered) with control characters escaped.
func TestDoctorShowsControlsEscaped(t *testing.T) {
	v := writeVault(t)
	os.MkdirAll(filepath.Join(v, ".quire"), 0o700)
	os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte("model:\n  provider: openai\n  endpoint: http://127.0.0.1:9\n  model: \"m\\nok   forged\\e[2J\"\n  remote: \"true\"\n"), 0o644)
	out, _ := runCLI(t, "doctor", "--vault", v)
	if strings.Contains(out, "\nok   forged") || strings.Contains(out, "\x1b") {
		t.Errorf("doctor printed the model name raw:\n%s", out)
	}
	if !strings.Contains(out, `m\nok   forged\x1b[2J`) {
		t.Errorf("doctor lacks the escaped model name:\n%s", out)
	}
}

// TestEvalSecondBrain: quire eval reads the second-brain dev vault's
// questions.json and reports second-brain-evals' R@5, R@10 and
// reachability per type, and recall at 1 to 50, whatever they are today
// (the figures are logged, not asserted: a ranking change moves them).
func TestEvalSecondBrain(t *testing.T) {
	v, err := secondbrain.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(v.Dir, ".quire"), 0o700)
	os.WriteFile(filepath.Join(v.Dir, ".quire", "config.yaml"), []byte("dense:\n  embedder: none\n"), 0o644)
	out, err := runCLI(t, "eval", "--vault", v.Dir, "--gold", v.QuestionsFile, "--json", "--channel", "bm25")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Queries != len(v.Questions) || rep.GoldFiles == nil {
		t.Fatalf("%d questions, gold-file scores %+v; want %d and scores", rep.Queries, rep.GoldFiles, len(v.Questions))
	}
	for _, typ := range []string{"current", "superseded", "last_week", "overview", "fact"} {
		m := rep.ByType[typ]
		if m == nil || m.GoldFiles == nil {
			t.Errorf("no %s scores in %s", typ, out)
			continue
		}
		t.Logf("%-10s n=%d R@1 %.2f R@5 %.2f R@10 %.2f reach %.2f MRR %.3f", typ, m.N, m.RecallAt.At1, m.GoldFiles.R5, m.GoldFiles.R10, m.GoldFiles.Reachability, m.SpanMRR)
	}
	if g := rep.GoldFiles; g.Reachability < g.R10 || g.R10 < g.R5 || rep.RecallAt.At5 != g.R5 || rep.RecallAt.At10 != g.R10 || rep.RecallAt.At50 != g.Reachability {
		t.Errorf("scores out of order or disagreeing: %+v, recall at %+v", g, rep.RecallAt)
	}
	text, err := runCLI(t, "eval", "--vault", v.Dir, "--gold", v.QuestionsFile, "--channel", "bm25")
	if err != nil || !strings.Contains(text, "second-brain-evals") || !strings.Contains(text, "\nlast_week ") {
		t.Errorf("eval's table: %v\n%s", err, text)
	}
	t.Logf("\n%s", text)
}
