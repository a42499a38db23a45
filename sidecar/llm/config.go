package llm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
)

// The providers Config.Provider accepts.
const (
	Ollama    = "ollama"
	OpenAI    = "openai" // any OpenAI-compatible server: OpenAI, LM Studio, llama.cpp server, vLLM
	Anthropic = "anthropic"
)

// Config says which model to use and how to reach it. It is embedded in the
// sidecar's config file (under `model:`); the YAML keys are the tags. The
// zero Provider means no model is configured, which is a valid state: ask
// then answers with extracted sentences.
type Config struct {
	// Provider is "ollama", "openai" (any OpenAI-compatible server) or
	// "anthropic"; empty for none.
	Provider string `yaml:"provider"`
	// Endpoint is the server's base URL. Empty means the provider's usual
	// one: http://127.0.0.1:11434 (Ollama), https://api.openai.com/v1,
	// https://api.anthropic.com/v1. For OpenAI-compatible and Anthropic
	// servers a URL with no path gets "/v1".
	Endpoint string `yaml:"endpoint"`
	// Model is the chat model, e.g. "qwen3:8b" or "gpt-4.1-mini".
	Model string `yaml:"model"`
	// EmbedModel is the embedding model on the same server, e.g.
	// "nomic-embed-text"; empty when embeddings come from elsewhere.
	EmbedModel string `yaml:"embed_model"`
	// APIKeyEnv names the environment variable that holds the key; empty
	// means OPENAI_API_KEY or ANTHROPIC_API_KEY by provider.
	APIKeyEnv string `yaml:"api_key_env"`
	// APIKey is the key itself, as the plugin's settings pass it; it wins
	// over APIKeyEnv. Never log it.
	APIKey string `yaml:"api_key"`
	// Timeout bounds one whole call, streaming included. A call that runs
	// past it fails with ErrTimeout for that question only.
	Timeout time.Duration `yaml:"timeout"`
	// ContextTokens is the model's context window, for sizing what ask
	// packs into a prompt; sent to Ollama as num_ctx, whose own default
	// (2048–4096) would silently cut a long prompt. 0 = the server's default.
	ContextTokens int `yaml:"context_tokens"`
	// Remote says whether the endpoint sends data off this machine:
	// "auto" (or empty) decides by its host (loopback and localhost are
	// local), "true" makes it remote whatever its host (a local proxy such
	// as LiteLLM that forwards to a hosted API), "false" local. Passages of
	// private folders never reach a remote model.
	Remote string `yaml:"remote"`
}

// Default returns the configuration with no model and a two-minute timeout:
// long enough for a local model to load and answer, short enough that a
// hung server does not hold a question forever.
func Default() Config {
	return Config{Timeout: 2 * time.Minute}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Validate reports the first bad value, naming its YAML key (without the
// "model." the sidecar's config puts in front).
func (c Config) Validate() error {
	switch c.Provider {
	case "":
		return nil
	case Ollama, OpenAI, Anthropic:
	default:
		return fmt.Errorf("provider: %q is not one of ollama, openai, anthropic", c.Provider)
	}
	if strings.TrimSpace(c.Model) == "" && strings.TrimSpace(c.EmbedModel) == "" {
		return fmt.Errorf("model: required when provider is %s", c.Provider)
	}
	if c.Provider == Anthropic && c.EmbedModel != "" {
		return errors.New("embed_model: anthropic has no embeddings API")
	}
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("endpoint: %q is not an http(s) URL", c.Endpoint)
		}
	}
	if err := ValidKeyEnv(c.APIKeyEnv); err != nil {
		return err
	}
	if c.Timeout <= 0 {
		return errors.New("timeout: must be positive, e.g. 2m")
	}
	if c.ContextTokens < 0 {
		return errors.New("context_tokens: must not be negative")
	}
	return ValidRemote(c.Remote)
}

// ValidKeyEnv checks an `api_key_env:` value: empty, or the name of an
// environment variable. The error starts with the key.
func ValidKeyEnv(name string) error {
	if name != "" && !envName.MatchString(name) {
		return fmt.Errorf("api_key_env: %q is not an environment variable name", name)
	}
	return nil
}

// ValidRemote checks a `remote:` value (of model: or of another section
// that names an endpoint): empty, "auto", "true" or "false". The error
// starts with the key, "remote: …".
func ValidRemote(remote string) error {
	switch remote {
	case "", "auto", "true", "false":
		return nil
	}
	return fmt.Errorf("remote: %q is not auto, true or false", remote)
}

// BaseURL is the endpoint requests go to: Endpoint, or the provider's
// usual one, without a trailing slash; "/v1" is added to an OpenAI-compatible
// or Anthropic URL that has no path.
func (c Config) BaseURL() string {
	e := strings.TrimRight(c.Endpoint, "/")
	switch c.Provider {
	case Ollama:
		if e == "" {
			return "http://127.0.0.1:11434"
		}
		return e
	case OpenAI:
		if e == "" {
			return "https://api.openai.com/v1"
		}
	case Anthropic:
		if e == "" {
			return "https://api.anthropic.com/v1"
		}
	default:
		return e
	}
	if u, err := url.Parse(e); err == nil && u.Path == "" {
		e += "/v1"
	}
	return e
}

// KeyEnv is the environment variable the key is read from.
func (c Config) KeyEnv() string {
	switch {
	case c.APIKeyEnv != "":
		return c.APIKeyEnv
	case c.Provider == Anthropic:
		return "ANTHROPIC_API_KEY"
	case c.Provider == OpenAI:
		return "OPENAI_API_KEY"
	}
	return ""
}

// key returns the API key: APIKey, else the environment variable's value.
func (c Config) key() string {
	if c.APIKey != "" {
		return c.APIKey
	}
	if env := c.KeyEnv(); env != "" {
		return os.Getenv(env)
	}
	return ""
}

// Local reports whether the endpoint is on this machine, by LocalEndpoint.
// Anything else is remote: private notes must not go there.
func (c Config) Local() bool { return LocalEndpoint(c.Remote, c.BaseURL()) }

// LocalEndpoint reads a `remote:` value against an endpoint URL: "false"
// is local, "true" remote, and "auto" (or empty) local only for a loopback
// address or "localhost", since any other host may be another machine.
func LocalEndpoint(remote, endpoint string) bool {
	switch remote {
	case "true":
		return false
	case "false":
		return true
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
