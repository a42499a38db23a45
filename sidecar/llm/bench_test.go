package llm_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// BenchmarkChat measures the client's own cost per call (langchaingo, the
// recording transport, JSON handling) against the fake on loopback, so a
// slow ask can be blamed on the model and not on this package.
func BenchmarkChat(b *testing.B) {
	passages := strings.Repeat("A passage of about a dozen words taken from the vault. ", 200)
	msgs := []llm.Message{{Role: llm.System, Content: passages}, {Role: llm.User, Content: "What is it?"}}
	answer := strings.Repeat("word ", 200)
	for _, p := range providers {
		for _, mode := range []string{"chat", "stream", "json"} {
			b.Run(p.name+"/"+mode, func(b *testing.B) {
				s := llmtest.New(b)
				reply := llmtest.Reply{Text: answer}
				opts := llm.Options{}
				if mode == "json" {
					reply.Text = `{"answer": "` + answer + `", "citations": [1, 2]}`
					opts.JSONSchema = answerSchema
				}
				s.SetDefault(reply)
				c, err := llm.New(config(p, s.URL))
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if mode == "stream" {
						_, err = c.Stream(ctx, msgs, opts, func(string) {})
					} else {
						_, err = c.Chat(ctx, msgs, opts)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkEmbed measures batching overhead: 256 passages in batches of 32.
func BenchmarkEmbed(b *testing.B) {
	texts := make([]string, 256)
	for i := range texts {
		texts[i] = fmt.Sprintf("passage %d: %s", i, strings.Repeat("text ", 50))
	}
	for _, provider := range []string{llm.Ollama, llm.OpenAI} {
		b.Run(provider, func(b *testing.B) {
			s := llmtest.New(b)
			s.SetDims(768)
			e, err := llm.NewEmbedder(embedConfig(provider, s.URL, "nomic-embed-text"))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
