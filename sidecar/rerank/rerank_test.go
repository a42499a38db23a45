package rerank

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/config"
)

// fake is a reranker server of either API shape. It scores a text by how
// many of the query's words it holds (a stand-in for a cross-encoder) and
// answers sorted by score, best first, as TEI and Cohere do.
type fake struct {
	*httptest.Server
	tei bool
	// answer, when set, replaces the scored answer.
	answer func(w http.ResponseWriter, r *http.Request, n int)

	mu   sync.Mutex
	reqs []seen
}

// seen is what the fake was sent.
type seen struct {
	path, auth string
	body       map[string]any
	texts      []string
}

func newFake(t *testing.T, tei bool) *fake {
	f := &fake{tei: tei}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad json", http.StatusUnprocessableEntity)
		return
	}
	key := "documents"
	if f.tei {
		key = "texts"
	}
	var texts []string
	for _, t := range body[key].([]any) {
		texts = append(texts, t.(string))
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, seen{path: r.URL.Path, auth: r.Header.Get("Authorization"), body: body, texts: texts})
	f.mu.Unlock()
	if f.answer != nil {
		f.answer(w, r, len(texts))
		return
	}
	query := strings.Fields(strings.ToLower(body["query"].(string)))
	type scored struct {
		i int
		s float64
	}
	var out []scored
	for i, t := range texts {
		s := 0.0
		for _, q := range query {
			if strings.Contains(strings.ToLower(t), q) {
				s++
			}
		}
		out = append(out, scored{i, 10*s + float64(i)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].s > out[b].s })
	var results []map[string]any
	for _, o := range out {
		if f.tei {
			results = append(results, map[string]any{"index": o.i, "score": o.s})
		} else {
			results = append(results, map[string]any{"index": o.i, "relevance_score": o.s})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if f.tei {
		json.NewEncoder(w).Encode(results)
	} else {
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "results": results})
	}
}

func (f *fake) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

func client(t *testing.T, c config.Rerank) *Client {
	t.Helper()
	if c.Timeout == 0 {
		c.Timeout = 2 * time.Second
	}
	cl, err := New(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

var texts = []string{"The sky is blue.", "Rennet curdles milk into curds.", "Milk is white.", "Cheese needs milk and rennet."}

// want is the fake's score of each text for "rennet curdles milk": ten
// per word held, plus the text's index so that no two tie.
var want = []float64{0, 31, 12, 23}

// TestRerankShapes: each provider posts to its documented path in its
// API's shape, with the key as a Bearer token where one is set, and gets
// back one score per text in the texts' order, though the server answers
// best first.
func TestRerankShapes(t *testing.T) {
	t.Setenv("QUIRE_TEST_RERANK_KEY", "sekret")
	tests := []struct {
		provider, model, keyEnv string
		tei                     bool
		path, auth              string
	}{
		{provider: config.RerankTEI, tei: true, path: "/rerank"},
		{provider: config.RerankCohere, model: "rerank-v3.5", keyEnv: "QUIRE_TEST_RERANK_KEY", path: "/v2/rerank", auth: "Bearer sekret"},
		{provider: config.RerankJina, model: "jina-reranker-v2-base-multilingual", keyEnv: "QUIRE_TEST_RERANK_KEY", path: "/v1/rerank", auth: "Bearer sekret"},
		{provider: config.RerankLlamaCpp, path: "/v1/rerank"},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			f := newFake(t, tt.tei)
			cl := client(t, config.Rerank{Provider: tt.provider, Endpoint: f.URL, Model: tt.model, APIKeyEnv: tt.keyEnv})
			got, err := cl.Rerank(context.Background(), "rennet curdles milk", texts)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("scores %v, want %v in the texts' order", got, want)
			}
			r := f.requests()[0]
			if r.path != tt.path || r.auth != tt.auth {
				t.Errorf("posted to %q with Authorization %q, want %q and %q", r.path, r.auth, tt.path, tt.auth)
			}
			if tt.tei {
				if r.body["truncate"] != true || r.body["raw_scores"] != false {
					t.Errorf("TEI body %v, want truncate true and raw_scores false", r.body)
				}
				return
			}
			if r.body["top_n"] != float64(len(texts)) || r.body["return_documents"] != false {
				t.Errorf("body %v, want top_n %d and return_documents false", r.body, len(texts))
			}
			if m, _ := r.body["model"].(string); m != tt.model {
				t.Errorf("model %q, want %q", m, tt.model)
			}
		})
	}
}

// TEI refuses more than 32 texts a request by default: 70 go in three,
// and the scores still come back in the texts' order.
func TestTEIBatches(t *testing.T) {
	f := newFake(t, true)
	cl := client(t, config.Rerank{Provider: config.RerankTEI, Endpoint: f.URL})
	var many []string
	for i := range 70 {
		many = append(many, fmt.Sprintf("text %d", i))
	}
	got, err := cl.Rerank(context.Background(), "text", many)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests()); n != 3 {
		t.Errorf("%d requests, want 3 of at most 32 texts", n)
	}
	for i, s := range got {
		// The fake adds the index within its batch.
		if w := 10 + float64(i%32); s != w {
			t.Fatalf("score %d = %v, want %v", i, s, w)
		}
	}
}

func TestNoTextsNoRequest(t *testing.T) {
	f := newFake(t, true)
	got, err := client(t, config.Rerank{Provider: config.RerankTEI, Endpoint: f.URL}).Rerank(context.Background(), "q", nil)
	if err != nil || got != nil || len(f.requests()) != 0 {
		t.Errorf("got %v, %v after %d requests; want nothing asked", got, err, len(f.requests()))
	}
}

// TestRerankFailures: every way a server can answer wrong is an error
// that names the URL, never scores that would misorder the results.
func TestRerankFailures(t *testing.T) {
	cohere := func(results string) func(http.ResponseWriter, *http.Request, int) {
		return func(w http.ResponseWriter, _ *http.Request, _ int) { fmt.Fprintf(w, `{"results": %s}`, results) }
	}
	tests := []struct {
		name   string
		answer func(http.ResponseWriter, *http.Request, int)
		want   string
	}{
		{"missing index", cohere(`[{"index": 0, "relevance_score": 0.9}, {"index": 2, "relevance_score": 0.5}]`),
			"answer scores 2 of 4 texts (text 1 missing)"},
		{"index twice", cohere(`[{"index": 0, "relevance_score": 1}, {"index": 0, "relevance_score": 1}, {"index": 1, "relevance_score": 1}, {"index": 2, "relevance_score": 1}]`),
			"answer scores text 0 twice"},
		{"index out of range", cohere(`[{"index": 4, "relevance_score": 1}]`), "answer scores index 4 of 4 texts"},
		{"no score", cohere(`[{"index": 0}]`), "answer gives text 0 no score"},
		{"not json", func(w http.ResponseWriter, _ *http.Request, _ int) { fmt.Fprint(w, "<html>") }, "decode answer"},
		{"500", func(w http.ResponseWriter, _ *http.Request, _ int) {
			http.Error(w, "model\nnot loaded", http.StatusInternalServerError)
		}, "status 500: model not loaded"},
		{"401", func(w http.ResponseWriter, _ *http.Request, _ int) { http.Error(w, "bad key", http.StatusUnauthorized) },
			"status 401: bad key (check rerank.api_key)"},
		{"huge body", func(w http.ResponseWriter, _ *http.Request, _ int) {
			w.Write([]byte(`{"results": [`))
			pad := strings.Repeat(`{"index": 0, "relevance_score": 1},`, 1000)
			for range MaxResponseBytes/len(pad) + 1 {
				w.Write([]byte(pad))
			}
		}, "answer over 4 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, false)
			f.answer = tt.answer
			cl := client(t, config.Rerank{Provider: config.RerankLlamaCpp, Endpoint: f.URL})
			got, err := cl.Rerank(context.Background(), "rennet", texts)
			prefix := "rerank " + f.URL + "/v1/rerank: "
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, err %v; want an error %q…%q", got, err, prefix, tt.want)
			}
		})
	}
}

// A server that does not answer within rerank.timeout: the call ends
// then, not when the server gives up, and says which setting bounds it.
func TestRerankTimeout(t *testing.T) {
	f := newFake(t, true)
	f.answer = func(w http.ResponseWriter, r *http.Request, _ int) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
	cl := client(t, config.Rerank{Provider: config.RerankTEI, Endpoint: f.URL, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := cl.Rerank(context.Background(), "q", texts)
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms (rerank.timeout)") {
		t.Errorf("err = %v, want a timeout naming rerank.timeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s, want about the 200ms timeout", d)
	}
}

// A redirect to another host is refused before anything is sent there;
// one to the same host is followed.
func TestRerankRedirects(t *testing.T) {
	other := newFake(t, true)
	f := newFake(t, true)
	f.answer = func(w http.ResponseWriter, r *http.Request, _ int) {
		http.Redirect(w, r, other.URL+"/rerank", http.StatusTemporaryRedirect)
	}
	cl := client(t, config.Rerank{Provider: config.RerankTEI, Endpoint: f.URL})
	_, err := cl.Rerank(context.Background(), "q", texts)
	if err == nil || !strings.Contains(err.Error(), "redirect to http://"+strings.TrimPrefix(other.URL, "http://")+" refused") {
		t.Errorf("err = %v, want the redirect to another host refused", err)
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("the other host got %d requests, want none", n)
	}

	var once sync.Once
	same := newFake(t, true)
	inner := same.Config.Handler
	same.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		moved := false
		once.Do(func() { moved = true })
		if moved {
			http.Redirect(w, r, "/v2/rerank", http.StatusPermanentRedirect)
			return
		}
		inner.ServeHTTP(w, r)
	})
	got, err := client(t, config.Rerank{Provider: config.RerankTEI, Endpoint: same.URL}).Rerank(context.Background(), "rennet curdles milk", texts)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("same-host redirect: %v, %v; want %v", got, err, want)
	}
}

func TestRerankURL(t *testing.T) {
	tests := []struct{ provider, endpoint, want string }{
		{config.RerankTEI, "", "http://127.0.0.1:8080/rerank"},
		{config.RerankLlamaCpp, "", "http://127.0.0.1:8080/v1/rerank"},
		{config.RerankCohere, "", "https://api.cohere.com/v2/rerank"},
		{config.RerankJina, "", "https://api.jina.ai/v1/rerank"},
		{config.RerankLlamaCpp, "http://gpu:8000/v1/", "http://gpu:8000/v1/rerank"}, // vLLM's OpenAI-style base
		{config.RerankTEI, "http://h/api/rerank", "http://h/api/rerank"},
		{config.RerankCohere, "https://api.cohere.com/v1", "https://api.cohere.com/v1/rerank"},
	}
	for _, tt := range tests {
		c := config.Rerank{Provider: tt.provider, Endpoint: tt.endpoint, Model: "m", Timeout: time.Second}
		if got := rerankURL(c); got != tt.want {
			t.Errorf("%s %q: %q, want %q", tt.provider, tt.endpoint, got, tt.want)
		}
	}
}

func TestNewChecksConfig(t *testing.T) {
	if _, err := New(config.Rerank{}, nil); err == nil {
		t.Error("New with no provider: no error")
	}
	if _, err := New(config.Rerank{Provider: config.RerankJina, Timeout: time.Second}, nil); err == nil || !strings.Contains(err.Error(), "rerank.model") {
		t.Errorf("New jina without model: %v, want rerank.model", err)
	}
	cl, err := New(config.Rerank{Provider: config.RerankCohere, Model: "m", Timeout: time.Second}, nil)
	if err != nil || !cl.Remote() {
		t.Errorf("cohere's own endpoint: remote %v, %v; want remote", err == nil && cl.Remote(), err)
	}
	cl, err = New(config.Rerank{Provider: config.RerankTEI, Timeout: time.Second}, nil)
	if err != nil || cl.Remote() {
		t.Errorf("tei on 127.0.0.1: %v; want local", err)
	}
}

func TestDoctor(t *testing.T) {
	ctx := context.Background()
	if c := Doctor(ctx, config.Rerank{}, nil); !c.OK || !strings.Contains(c.Detail, "none configured") {
		t.Errorf("no reranker: %+v", c)
	}
	f := newFake(t, true)
	c := Doctor(ctx, config.Rerank{Provider: config.RerankTEI, Endpoint: f.URL, Timeout: time.Second}, nil)
	if !c.OK || !strings.Contains(c.Detail, "on this machine: scored 2 texts") {
		t.Errorf("working TEI: %+v", c)
	}
	f.answer = func(w http.ResponseWriter, _ *http.Request, _ int) {
		http.Error(w, "loading", http.StatusServiceUnavailable)
	}
	c = Doctor(ctx, config.Rerank{Provider: config.RerankTEI, Endpoint: f.URL, Timeout: time.Second}, nil)
	if c.OK || !strings.Contains(c.Detail, "rerank "+f.URL+"/rerank: status 503: loading") || c.Fix == "" {
		t.Errorf("TEI answering 503: %+v", c)
	}
}
