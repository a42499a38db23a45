package llmtest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

func post(t *testing.T, ctx context.Context, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestQueueThenDefault(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Reply{Text: "first"}, llmtest.Reply{Text: "second"})
	s.SetDefault(llmtest.Reply{Text: "after"})
	var got []string
	for range 3 {
		_, body := post(t, context.Background(), s.URL+"/api/chat", `{"model":"m","stream":false,"messages":[{"role":"user","content":"hi there"}]}`)
		var r struct {
			Message struct{ Content string } `json:"message"`
			Prompt  int                      `json:"prompt_eval_count"`
		}
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		got = append(got, r.Message.Content)
		if r.Prompt != 2 {
			t.Errorf("prompt_eval_count = %d, want 2 (words)", r.Prompt)
		}
	}
	if strings.Join(got, ",") != "first,second,after" {
		t.Errorf("replies = %v", got)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].API != llmtest.OllamaChat || reqs[0].Stream || reqs[0].Messages[0].Content != "hi there" {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestOllamaStreamsByDefault(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Reply{Text: "a b c"})
	resp, body := post(t, context.Background(), s.URL+"/api/chat", `{"model":"m","messages":[]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("content type %q", ct)
	}
	lines := 0
	for sc := bufio.NewScanner(strings.NewReader(body)); sc.Scan(); lines++ {
	}
	if lines != 4 { // three words and the done line
		t.Errorf("%d lines, want 4:\n%s", lines, body)
	}
}

func TestErrorShapes(t *testing.T) {
	s := llmtest.New(t)
	s.SetModels("llama3:latest")
	tests := []struct {
		path, body string
		status     int
		want       string
	}{
		{"/api/chat", `{"model":"llama3"}`, 200, `"done":true`}, // no tag means :latest
		{"/api/chat", `{"model":"qwen3"}`, 404, `{"error":"model \"qwen3\" not found, try pulling it first"}`},
		{"/v1/chat/completions", `{"model":"gpt"}`, 404, `"code":"model_not_found"`},
		{"/v1/messages", `{"model":"claude"}`, 404, `"type":"not_found_error"`},
		{"/nowhere", `{}`, 404, "404 page not found"},
	}
	for _, tt := range tests {
		resp, body := post(t, context.Background(), s.URL+tt.path, tt.body)
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s %s: %d %s, want %d with %s", tt.path, tt.body, resp.StatusCode, body, tt.status, tt.want)
		}
	}
}

func TestDelayGivesUpWithTheClient(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Reply{Delay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if resp, _ := post(t, ctx, s.URL+"/v1/messages", `{"model":"m"}`); resp != nil {
		t.Fatal("got a response despite the delay")
	}
	s.Close() // must not wait for the hour
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestVector(t *testing.T) {
	a, b := llmtest.Vector("x", 16), llmtest.Vector("x", 16)
	var norm float32
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("not deterministic")
		}
		norm += a[i] * a[i]
	}
	if norm < 0.999 || norm > 1.001 {
		t.Errorf("norm² = %v, want 1", norm)
	}
}

func TestResponder(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Reply{Text: "queued first"})
	s.SetResponder(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "echo: " + r.Messages[len(r.Messages)-1].Content}
	})
	var got []string
	for _, q := range []string{"uno", "dos"} {
		_, body := post(t, context.Background(), s.URL+"/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"`+q+`"}]}`)
		var r struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.Choices) != 1 {
			t.Fatalf("%v: %s", err, body)
		}
		got = append(got, r.Choices[0].Message.Content)
	}
	if strings.Join(got, "|") != "queued first|echo: dos" {
		t.Errorf("replies = %q", got)
	}
}
