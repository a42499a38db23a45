package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// summary renders checks one per line as "name ok|FAIL: detail -> fix".
func summary(checks []llm.Check) string {
	var b strings.Builder
	for _, c := range checks {
		status := "FAIL"
		if c.OK {
			status = "ok"
		}
		b.WriteString(c.Name + " " + status + ": " + c.Detail)
		if c.Fix != "" {
			b.WriteString(" -> " + c.Fix)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestDoctor(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(s *llmtest.Server, cfg *llm.Config)
		// want lists fragments that must appear, in order, one per check.
		want []string
	}{
		{"no model", func(s *llmtest.Server, cfg *llm.Config) { *cfg = llm.Default() },
			[]string{"model ok: none configured"}},
		{"bad config", func(s *llmtest.Server, cfg *llm.Config) { cfg.Timeout = 0 },
			[]string{"model config FAIL: timeout: must be positive", "-> correct model.timeout"}},
		{"ollama all good", func(s *llmtest.Server, cfg *llm.Config) {
			s.SetModels("qwen3:8b", "nomic-embed-text:latest")
		}, []string{
			"endpoint ok: ollama at http://127.0.0.1:", "on this machine",
			"ollama ok: running, 2 models installed",
			"ollama has qwen3:8b ok", "ollama has nomic-embed-text ok",
			"chat model qwen3:8b ok: answered in",
			"embed model nomic-embed-text ok: 8 dimensions",
		}},
		{"ollama model missing", func(s *llmtest.Server, cfg *llm.Config) {
			s.SetModels("nomic-embed-text")
		}, []string{"ollama has qwen3:8b FAIL: qwen3:8b is not installed -> run: ollama pull qwen3:8b"}},
		{"ollama down", func(s *llmtest.Server, cfg *llm.Config) { cfg.Endpoint = "http://127.0.0.1:1" },
			[]string{"ollama FAIL: model_unavailable: http://127.0.0.1:1 refused the connection -> start Ollama"}},
		{"chat model slow", func(s *llmtest.Server, cfg *llm.Config) {
			cfg.Timeout = 500 * time.Millisecond // the tags call before must not time out
			s.SetModels("qwen3:8b", "nomic-embed-text")
			s.Push(llmtest.Reply{Delay: 5 * time.Second})
		}, []string{"chat model qwen3:8b FAIL: model_timeout", "-> the model may be busy or loading"}},
		{"openai local needs no key", func(s *llmtest.Server, cfg *llm.Config) {
			cfg.Provider = llm.OpenAI
		}, []string{"endpoint ok: openai at http://127.0.0.1:", "/v1, on this machine", "chat model qwen3:8b ok"}},
		{"anthropic without key", func(s *llmtest.Server, cfg *llm.Config) {
			*cfg = llm.Config{Provider: llm.Anthropic, Model: "claude-x", APIKeyEnv: "QUIRE_TEST_UNSET_KEY", Timeout: time.Second}
		}, []string{"endpoint ok: anthropic at https://api.anthropic.com/v1, remote",
			"api key FAIL: QUIRE_TEST_UNSET_KEY is not set -> set QUIRE_TEST_UNSET_KEY"}},
		{"anthropic rejects key", func(s *llmtest.Server, cfg *llm.Config) {
			s.SetAPIKey("right")
			*cfg = llm.Config{Provider: llm.Anthropic, Endpoint: s.URL, Model: "claude-x", APIKey: "wrong", Timeout: time.Second}
		}, []string{"api key ok: from Quire's settings", "chat model claude-x FAIL: model_auth",
			"-> the key in Quire's settings was refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.New(t)
			cfg := llm.Config{Provider: llm.Ollama, Endpoint: s.URL, Model: "qwen3:8b", EmbedModel: "nomic-embed-text", Timeout: 5 * time.Second}
			tt.setup(s, &cfg)
			got := summary(llm.Doctor(ctx, cfg))
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("checks lack %q (in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestDoctorFailsWhenBroken(t *testing.T) {
	// Any failing check must say how to fix it.
	s := llmtest.New(t)
	s.SetModels("other")
	cfg := llm.Config{Provider: llm.OpenAI, Endpoint: s.URL, Model: "gone", Timeout: 5 * time.Second}
	checks := llm.Doctor(context.Background(), cfg)
	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
			if c.Fix == "" {
				t.Errorf("check %q fails with no fix: %s", c.Name, c.Detail)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d failing checks, want 1:\n%s", failed, summary(checks))
	}
}
