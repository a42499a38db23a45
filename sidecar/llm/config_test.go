package llm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/llm"
	"go.yaml.in/yaml/v3"
)

func TestValidate(t *testing.T) {
	ok := llm.Config{Provider: llm.Ollama, Model: "qwen3:8b", Timeout: time.Minute}
	tests := []struct {
		name    string
		edit    func(*llm.Config)
		wantErr string // the field named, "" for valid
	}{
		{"default is valid (no model)", func(c *llm.Config) { *c = llm.Default() }, ""},
		{"ollama", func(c *llm.Config) {}, ""},
		{"embed model only", func(c *llm.Config) { c.Model, c.EmbedModel = "", "nomic-embed-text" }, ""},
		{"unknown provider", func(c *llm.Config) { c.Provider = "gemini" }, "provider:"},
		{"no model", func(c *llm.Config) { c.Model = " " }, "model:"},
		{"anthropic embeddings", func(c *llm.Config) { c.Provider, c.EmbedModel = llm.Anthropic, "x" }, "embed_model:"},
		{"endpoint not a URL", func(c *llm.Config) { c.Endpoint = "localhost:11434" }, "endpoint:"},
		{"endpoint ftp", func(c *llm.Config) { c.Endpoint = "ftp://127.0.0.1" }, "endpoint:"},
		{"endpoint https", func(c *llm.Config) { c.Endpoint = "https://llm.example.org/v1" }, ""},
		{"bad env name", func(c *llm.Config) { c.APIKeyEnv = "MY KEY" }, "api_key_env:"},
		{"zero timeout", func(c *llm.Config) { c.Timeout = 0 }, "timeout:"},
		{"negative context", func(c *llm.Config) { c.ContextTokens = -1 }, "context_tokens:"},
		{"remote true", func(c *llm.Config) { c.Remote = "true" }, ""},
		{"remote yes", func(c *llm.Config) { c.Remote = "yes" }, "remote:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.edit(&c)
			err := c.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error starting %q", err, tt.wantErr)
			}
		})
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct {
		provider, endpoint, want string
	}{
		{llm.Ollama, "", "http://127.0.0.1:11434"},
		{llm.Ollama, "http://gpu-box:11434/", "http://gpu-box:11434"},
		{llm.OpenAI, "", "https://api.openai.com/v1"},
		{llm.OpenAI, "http://127.0.0.1:1234", "http://127.0.0.1:1234/v1"}, // LM Studio as typed
		{llm.OpenAI, "http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"},
		{llm.OpenAI, "https://proxy.example.org/openai/v1", "https://proxy.example.org/openai/v1"},
		{llm.Anthropic, "", "https://api.anthropic.com/v1"},
		{llm.Anthropic, "https://api.anthropic.com", "https://api.anthropic.com/v1"},
	}
	for _, tt := range tests {
		c := llm.Config{Provider: tt.provider, Endpoint: tt.endpoint}
		if got := c.BaseURL(); got != tt.want {
			t.Errorf("%s %q: BaseURL() = %q, want %q", tt.provider, tt.endpoint, got, tt.want)
		}
	}
}

func TestLocal(t *testing.T) {
	tests := []struct {
		provider, endpoint string
		want               bool
		remote             string
	}{
		{llm.Ollama, "", true, ""},
		{llm.Ollama, "", true, "auto"},
		// A loopback proxy that forwards to a hosted API, said to be remote.
		{llm.OpenAI, "http://127.0.0.1:4000", false, "true"},
		{llm.OpenAI, "http://192.168.1.20:1234", true, "false"},
		{llm.Ollama, "http://localhost:11434", true, ""},
		{llm.OpenAI, "http://127.0.0.2:1234/v1", true, ""},
		{llm.OpenAI, "http://[::1]:8080", true, ""},
		{llm.OpenAI, "", false, ""},
		{llm.OpenAI, "http://192.168.1.20:1234", false, ""}, // another machine on the LAN is remote
		{llm.Ollama, "http://localhost.evil.org:11434", false, ""},
		{llm.Anthropic, "", false, ""},
	}
	for _, tt := range tests {
		c := llm.Config{Provider: tt.provider, Endpoint: tt.endpoint, Remote: tt.remote}
		if got := c.Local(); got != tt.want {
			t.Errorf("%s %q remote %q: Local() = %v, want %v", tt.provider, tt.endpoint, tt.remote, got, tt.want)
		}
	}
}

func TestKeyEnv(t *testing.T) {
	tests := []struct {
		cfg  llm.Config
		want string
	}{
		{llm.Config{Provider: llm.OpenAI}, "OPENAI_API_KEY"},
		{llm.Config{Provider: llm.Anthropic}, "ANTHROPIC_API_KEY"},
		{llm.Config{Provider: llm.OpenAI, APIKeyEnv: "GROQ_KEY"}, "GROQ_KEY"},
		{llm.Config{Provider: llm.Ollama}, ""},
	}
	for _, tt := range tests {
		if got := tt.cfg.KeyEnv(); got != tt.want {
			t.Errorf("%+v: KeyEnv() = %q, want %q", tt.cfg, got, tt.want)
		}
	}
}

// The lead embeds Config in the sidecar's config file; its keys and the
// duration syntax must read as a user would write them.
func TestYAML(t *testing.T) {
	in := `
provider: openai
endpoint: http://127.0.0.1:1234/v1
model: qwen2.5-7b-instruct
embed_model: text-embedding-nomic-embed-text-v1.5
api_key_env: LMSTUDIO_KEY
timeout: 90s
context_tokens: 8192
`
	got := llm.Default()
	if err := yaml.Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	want := llm.Config{Provider: llm.OpenAI, Endpoint: "http://127.0.0.1:1234/v1", Model: "qwen2.5-7b-instruct",
		EmbedModel: "text-embedding-nomic-embed-text-v1.5", APIKeyEnv: "LMSTUDIO_KEY", Timeout: 90 * time.Second,
		ContextTokens: 8192}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
}
