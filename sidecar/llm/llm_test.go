package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// provider is one row of the contract: every test below runs against each.
type provider struct {
	name string
	api  llmtest.API // the chat endpoint the client must hit
}

var providers = []provider{
	{llm.Ollama, llmtest.OllamaChat},
	{llm.OpenAI, llmtest.OpenAIChat},
	{llm.Anthropic, llmtest.AnthropicMessages},
}

func config(p provider, endpoint string) llm.Config {
	cfg := llm.Default()
	cfg.Provider, cfg.Endpoint, cfg.Model, cfg.Timeout = p.name, endpoint, "m1", 5*time.Second
	if p.name != llm.Ollama {
		cfg.APIKey = "sk-test"
	}
	return cfg
}

func client(t *testing.T, cfg llm.Config) *llm.Client {
	t.Helper()
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// each runs f once per provider against a fresh fake server.
func each(t *testing.T, f func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config)) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s := llmtest.New(t)
			f(t, p, s, config(p, s.URL))
		})
	}
}

var question = []llm.Message{
	{Role: llm.System, Content: "Answer from the passages."},
	{Role: llm.User, Content: "What is Quire?"},
	{Role: llm.System, Content: "Cite passage ids."},
}

func TestChat(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config) {
		s.Push(llmtest.Reply{Text: "A vault companion [1].", InputTokens: 42, OutputTokens: 7})
		rep, err := client(t, cfg).Chat(context.Background(), question, llm.Options{MaxTokens: 100})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rep, (llm.Reply{Text: "A vault companion [1].", InputTokens: 42, OutputTokens: 7}); got != want {
			t.Errorf("reply = %+v, want %+v", got, want)
		}
		req := s.Last(t)
		// langchaingo leaves Ollama's "stream" out when false, so Ollama
		// streams and langchaingo gathers the pieces; the others must not.
		if req.API != p.api || req.Model != "m1" || (req.Stream && p.name != llm.Ollama) {
			t.Errorf("request = %s model %q stream %v, want %s model m1 not streamed", req.API, req.Model, req.Stream, p.api)
		}
		// The two system messages arrive joined, first, in order.
		system, user := req.System, ""
		for _, m := range req.Messages {
			switch m.Role {
			case "system":
				system = m.Content
			case "user":
				user = m.Content
			}
		}
		if want := "Answer from the passages.\n\nCite passage ids."; system != want {
			t.Errorf("system = %q, want %q", system, want)
		}
		if user != "What is Quire?" {
			t.Errorf("user = %q", user)
		}
		if got := maxTokens(p, req.JSON); got != 100 {
			t.Errorf("max tokens sent = %v, want 100", got)
		}
	})
}

func maxTokens(p provider, body map[string]any) any {
	switch p.name {
	case llm.Ollama:
		opts, _ := body["options"].(map[string]any)
		return num(opts["num_predict"])
	case llm.OpenAI:
		// Not OpenAI's own API, so the field every local server reads.
		return num(body["max_tokens"])
	}
	return num(body["max_tokens"])
}

func num(v any) any {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return v
}

func TestStream(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config) {
		chunks := []string{"Quire ", "is a ", "companion ", "[1]."}
		s.Push(llmtest.Reply{Chunks: chunks, InputTokens: 30, OutputTokens: 4})
		var got []string
		rep, err := client(t, cfg).Stream(context.Background(), question, llm.Options{}, func(d string) {
			got = append(got, d)
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "|") != strings.Join(chunks, "|") {
			t.Errorf("deltas = %q, want %q", got, chunks)
		}
		if want := (llm.Reply{Text: "Quire is a companion [1].", InputTokens: 30, OutputTokens: 4}); rep != want {
			t.Errorf("reply = %+v, want %+v", rep, want)
		}
		if req := s.Last(t); !req.Stream {
			t.Error("request was not streamed")
		}
	})
}

var answerSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"answer":    map[string]any{"type": "string"},
		"citations": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
	},
	"required": []string{"answer", "citations"},
}

func TestChatJSON(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config) {
		// A fenced reply is still JSON once the fence is off.
		s.Push(llmtest.Reply{Text: "```json\n{\"answer\": \"yes\", \"citations\": [1]}\n```"})
		rep, err := client(t, cfg).Chat(context.Background(), question, llm.Options{JSONSchema: answerSchema})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"answer": "yes", "citations": [1]}`; rep.Text != want {
			t.Errorf("text = %q, want %q", rep.Text, want)
		}
		req := s.Last(t)
		switch p.name {
		case llm.OpenAI:
			rf, _ := req.JSON["response_format"].(map[string]any)
			js, _ := rf["json_schema"].(map[string]any)
			schema, _ := js["schema"].(map[string]any)
			props, _ := schema["properties"].(map[string]any)
			if rf["type"] != "json_schema" || props["citations"] == nil || schema["type"] != "object" {
				t.Errorf("response_format = %v, want json_schema with the schema", req.JSON["response_format"])
			}
		case llm.Ollama:
			if req.JSON["format"] != "json" {
				t.Errorf("format = %v, want json", req.JSON["format"])
			}
		}
		if p.name != llm.OpenAI {
			system := req.System
			if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
				system = req.Messages[0].Content
			}
			if !strings.Contains(system, "Answer from the passages.") || !strings.Contains(system, `"citations"`) {
				t.Errorf("system prompt lacks the instruction or the schema: %q", system)
			}
		}
	})
}

func TestChatJSONRetry(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config) {
		c := client(t, cfg)
		s.Push(llmtest.Reply{Text: "Sure! The answer is yes.", OutputTokens: 5},
			llmtest.Reply{Text: `{"answer":"yes","citations":[]}`, OutputTokens: 3})
		rep, err := c.Chat(context.Background(), question, llm.Options{JSONSchema: answerSchema})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Text != `{"answer":"yes","citations":[]}` || rep.OutputTokens != 8 {
			t.Errorf("reply = %+v, want the second reply with 8 output tokens", rep)
		}
		reqs := s.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		retry := reqs[1].Messages
		if last := retry[len(retry)-1]; last.Role != "user" || !strings.Contains(last.Content, "not valid JSON") {
			t.Errorf("retry ends with %+v, want the correction", last)
		}

		s.Push(llmtest.Reply{Text: "no"}, llmtest.Reply{Text: "still no {"})
		_, err = c.Chat(context.Background(), question, llm.Options{JSONSchema: answerSchema})
		if !errors.Is(err, llm.ErrBadJSON) {
			t.Fatalf("err = %v, want ErrBadJSON", err)
		}
		if n := len(s.Requests()); n != 4 {
			t.Errorf("%d requests, want 4 (one retry only)", n)
		}
	})
}

func TestTimeout(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config) {
		cfg.Timeout = 150 * time.Millisecond
		c := client(t, cfg)
		cases := []struct {
			name string
			rep  llmtest.Reply
			call func() error
		}{
			{"slow first byte", llmtest.Reply{Text: "late", Delay: 5 * time.Second}, func() error {
				_, err := c.Chat(context.Background(), question, llm.Options{})
				return err
			}},
			// A stream that stalls midway must not pass for a short answer.
			{"stalled stream", llmtest.Reply{Chunks: []string{"a ", "b ", "c"}, ChunkDelay: 2 * time.Second}, func() error {
				_, err := c.Stream(context.Background(), question, llm.Options{}, nil)
				return err
			}},
		}
		for _, tc := range cases {
			s.Push(tc.rep)
			start := time.Now()
			err := tc.call()
			if !errors.Is(err, llm.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s: err = %v, want ErrTimeout wrapping DeadlineExceeded", tc.name, err)
			}
			if errors.Is(err, llm.ErrUnavailable) {
				t.Errorf("%s: a slow model reported as unavailable: %v", tc.name, err)
			}
			if d := time.Since(start); d > 1500*time.Millisecond {
				t.Errorf("%s: took %s, want about the 150ms timeout", tc.name, d)
			}
		}
	})
}

func TestCallerCancel(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config) {
		s.Push(llmtest.Reply{Delay: 5 * time.Second})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := client(t, cfg).Chat(ctx, question, llm.Options{})
		if !errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrTimeout) || errors.Is(err, llm.ErrUnavailable) {
			t.Fatalf("err = %v, want context.Canceled only", err)
		}
	})
}

// closedPort returns an address on 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestRefused(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			cfg := config(p, closedPort(t))
			for _, stream := range []bool{false, true} {
				c := client(t, cfg)
				var err error
				if stream {
					_, err = c.Stream(context.Background(), question, llm.Options{}, nil)
				} else {
					_, err = c.Chat(context.Background(), question, llm.Options{})
				}
				if !errors.Is(err, llm.ErrUnavailable) || errors.Is(err, llm.ErrTimeout) {
					t.Fatalf("stream=%v: err = %v, want ErrUnavailable", stream, err)
				}
				if want := "model_unavailable: " + cfg.BaseURL() + " refused the connection"; !strings.HasPrefix(err.Error(), want) {
					t.Errorf("stream=%v: err = %q, want it to start %q", stream, err, want)
				}
			}
		})
	}
}

func TestRefusedOllamaMessage(t *testing.T) {
	endpoint := closedPort(t)
	_, err := client(t, config(providers[0], endpoint)).Chat(context.Background(), question, llm.Options{})
	if got, want := err.Error(), "model_unavailable: "+endpoint+" refused the connection (start Ollama (ollama serve) or fix model.endpoint)"; got != want {
		t.Errorf("err = %q\nwant  %q", got, want)
	}
}

func TestAuth(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config) {
		if p.name == llm.Ollama {
			// Ollama has no keys, but a proxy in front of it may.
			s.Push(llmtest.Reply{Status: 401, Error: "unauthorized"})
		} else {
			s.SetAPIKey("sk-right")
		}
		cfg.APIKey, cfg.APIKeyEnv = "", "QUIRE_TEST_KEY_"+strings.ToUpper(p.name)
		setenv(t, cfg.APIKeyEnv, "sk-wrong")
		_, err := client(t, cfg).Chat(context.Background(), question, llm.Options{})
		if !errors.Is(err, llm.ErrAuth) {
			t.Fatalf("err = %v, want ErrAuth", err)
		}
		if !strings.Contains(err.Error(), "set "+cfg.APIKeyEnv) {
			t.Errorf("err = %q, want it to name %s", err, cfg.APIKeyEnv)
		}
		var e *llm.Error
		if !errors.As(err, &e) || e.Status != 401 {
			t.Errorf("status = %v, want 401", e)
		}

		// The right key goes in the provider's header.
		if p.name == llm.Ollama {
			return
		}
		setenv(t, cfg.APIKeyEnv, "sk-right")
		if _, err := client(t, cfg).Chat(context.Background(), question, llm.Options{}); err != nil {
			t.Fatalf("with the right key: %v", err)
		}
	})
}

// setenv is t.Setenv for parallel tests: each caller uses its own name.
func setenv(t *testing.T, name, value string) {
	os.Setenv(name, value)
	t.Cleanup(func() { os.Unsetenv(name) })
}

func TestAnthropicNeedsKey(t *testing.T) {
	cfg := config(providers[2], "http://127.0.0.1:1")
	cfg.APIKey, cfg.APIKeyEnv = "", "QUIRE_TEST_NO_SUCH_KEY"
	_, err := llm.New(cfg)
	if !errors.Is(err, llm.ErrAuth) || !strings.Contains(err.Error(), "QUIRE_TEST_NO_SUCH_KEY") {
		t.Fatalf("err = %v, want ErrAuth naming the variable", err)
	}
}

func TestModelNotFound(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config) {
		s.SetModels("other")
		_, err := client(t, cfg).Chat(context.Background(), question, llm.Options{})
		if !errors.Is(err, llm.ErrModelNotFound) {
			t.Fatalf("err = %v, want ErrModelNotFound", err)
		}
		if !strings.Contains(err.Error(), `"m1"`) {
			t.Errorf("err = %q, want it to name the model", err)
		}
		if p.name == llm.Ollama && !strings.Contains(err.Error(), "ollama pull m1") {
			t.Errorf("err = %q, want the pull hint", err)
		}
	})
}

func TestServerError(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, cfg llm.Config) {
		s.Push(llmtest.Reply{Status: 500, Error: "out of memory"})
		_, err := client(t, cfg).Chat(context.Background(), question, llm.Options{})
		if !errors.Is(err, llm.ErrServer) || errors.Is(err, llm.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrServer", err)
		}
		if !strings.Contains(err.Error(), "HTTP 500: out of memory") {
			t.Errorf("err = %q, want the status and the server's message", err)
		}
	})
}

func TestNotConfigured(t *testing.T) {
	for _, cfg := range []llm.Config{llm.Default(), {Provider: llm.Ollama, EmbedModel: "e", Timeout: time.Second}} {
		if _, err := llm.New(cfg); !errors.Is(err, llm.ErrNotConfigured) {
			t.Errorf("New(%+v) = %v, want ErrNotConfigured", cfg, err)
		}
	}
}

func TestOpenAISchemaTooRich(t *testing.T) {
	s := llmtest.New(t)
	cfg := config(providers[1], s.URL)
	bad := json.RawMessage(`{"type": ["object", "null"]}`)
	_, err := client(t, cfg).Chat(context.Background(), question, llm.Options{JSONSchema: bad})
	if err == nil || !strings.Contains(err.Error(), "json schema") {
		t.Fatalf("err = %v, want a json schema error", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent with an unusable schema", n)
	}
}

// redirector answers every request with a 307 to the same path on target:
// Go's client would post the body (the prompt) again to target.
func redirector(t *testing.T, target string) string {
	t.Helper()
	r := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, target+req.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(r.Close)
	return r.URL
}

// TestRedirectIsAnError: a model endpoint that redirects gets no prompt
// posted on (a loopback endpoint is trusted with private passages, the
// address it names need not be) and its answer is an error that says so.
func TestRedirectIsAnError(t *testing.T) {
	each(t, func(t *testing.T, p provider, s *llmtest.Server, _ llm.Config) {
		cfg := config(p, redirector(t, s.URL))
		_, err := client(t, cfg).Chat(context.Background(), question, llm.Options{})
		if !errors.Is(err, llm.ErrServer) || !strings.Contains(err.Error(), "redirect") {
			t.Errorf("chat: err = %v, want ErrServer naming the redirect", err)
		}
		_, err = client(t, cfg).Stream(context.Background(), question, llm.Options{}, func(string) {})
		if !errors.Is(err, llm.ErrServer) || !strings.Contains(err.Error(), "redirect") {
			t.Errorf("stream: err = %v, want ErrServer naming the redirect", err)
		}
		if p.name != llm.Anthropic {
			cfg.EmbedModel = "e1"
			e, err := llm.NewEmbedder(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Embed(context.Background(), []string{"x"}); !errors.Is(err, llm.ErrServer) {
				t.Errorf("embed: err = %v, want ErrServer", err)
			}
		}
		if n := len(s.Requests()); n != 0 {
			t.Errorf("the redirect's target got %d requests, want 0", n)
		}
	})
}
