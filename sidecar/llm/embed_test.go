package llm_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

func embedConfig(provider, endpoint, model string) llm.Config {
	return llm.Config{Provider: provider, Endpoint: endpoint, EmbedModel: model, Timeout: 5 * time.Second}
}

func TestEmbedBatches(t *testing.T) {
	for _, tc := range []struct {
		provider string
		api      llmtest.API
	}{{llm.Ollama, llmtest.OllamaEmbed}, {llm.OpenAI, llmtest.OpenAIEmbeddings}} {
		t.Run(tc.provider, func(t *testing.T) {
			s := llmtest.New(t)
			e, err := llm.NewEmbedder(embedConfig(tc.provider, s.URL, "nomic-embed-text"))
			if err != nil {
				t.Fatal(err)
			}
			texts := make([]string, 70)
			for i := range texts {
				texts[i] = fmt.Sprintf("passage %d", i)
			}
			vecs, err := e.EmbedDocuments(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(vecs) != len(texts) {
				t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
			}
			// Order survives batching, and the model's document prefix was sent.
			for i, v := range vecs {
				if want := llmtest.Vector("search_document: "+texts[i], s.Dims()); !slices.Equal(v, want) {
					t.Fatalf("vector %d is not the one for %q", i, texts[i])
				}
			}
			var sizes []int
			for _, r := range s.Requests() {
				if r.API != tc.api || r.Model != "nomic-embed-text" {
					t.Errorf("request to %s for %q", r.API, r.Model)
				}
				sizes = append(sizes, len(r.Input))
			}
			if want := []int{32, 32, 6}; !slices.Equal(sizes, want) {
				t.Errorf("batch sizes = %v, want %v", sizes, want)
			}

			q, err := e.EmbedQuery(context.Background(), []string{"who founded Ariostea?"})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Last(t).Input; len(got) != 1 || got[0] != "search_query: who founded Ariostea?" || len(q) != 1 {
				t.Errorf("query sent as %q", got)
			}
		})
	}
}

func TestEmbedName(t *testing.T) {
	e, err := llm.NewEmbedder(embedConfig(llm.Ollama, "", "bge-m3"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Name(), "ollama:bge-m3"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
}

func TestEmbedErrors(t *testing.T) {
	ctx := context.Background()
	for _, provider := range []string{llm.Ollama, llm.OpenAI} {
		t.Run(provider, func(t *testing.T) {
			// Nothing listening.
			e, _ := llm.NewEmbedder(embedConfig(provider, closedPort(t), "bge-m3"))
			if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, llm.ErrUnavailable) {
				t.Errorf("refused: err = %v, want ErrUnavailable", err)
			}

			s := llmtest.New(t)
			cfg := embedConfig(provider, s.URL, "bge-m3")
			cfg.Timeout = 100 * time.Millisecond
			e, _ = llm.NewEmbedder(cfg)
			s.Push(llmtest.Reply{Delay: 5 * time.Second})
			if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, llm.ErrTimeout) {
				t.Errorf("slow: err = %v, want ErrTimeout", err)
			}

			s.SetModels("other")
			_, err := e.Embed(ctx, []string{"x"})
			if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), `"bge-m3"`) {
				t.Errorf("missing model: err = %v, want ErrModelNotFound naming bge-m3", err)
			}
			s.SetModels()

			// A server that drops a vector must not shift the rest.
			s.Push(llmtest.Reply{Embeddings: [][]float32{{1, 0}}})
			if _, err := e.Embed(ctx, []string{"a", "b"}); !errors.Is(err, llm.ErrServer) {
				t.Errorf("short reply: err = %v, want ErrServer", err)
			}
		})
	}
}

func TestEmbedNotConfigured(t *testing.T) {
	if _, err := llm.NewEmbedder(llm.Config{Provider: llm.Ollama, Model: "qwen3:8b", Timeout: time.Second}); !errors.Is(err, llm.ErrNotConfigured) {
		t.Errorf("err = %v, want ErrNotConfigured", err)
	}
}
