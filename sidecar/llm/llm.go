// Package llm owns the connection to language and embedding models: Ollama,
// any OpenAI-compatible server (OpenAI, LM Studio, llama.cpp server, vLLM)
// and Anthropic, through langchaingo. A Client sends a chat and returns the
// reply (whole, or streamed as it arrives), in JSON when asked; an Embedder
// turns texts into vectors; Doctor checks a configuration end to end.
//
// Every failed call returns an *Error that matches one sentinel with
// errors.Is — ErrTimeout (this question was slow), ErrUnavailable (nothing
// answers at the endpoint), ErrAuth, ErrModelNotFound, ErrServer,
// ErrBadJSON — so the server can map it to a protocol code, and its message
// names the endpoint or model and says what to fix.
//
// The fake server in llmtest speaks all three APIs for tests.
package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// Role says who wrote a message.
type Role string

// The roles a Message may have.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one turn of a chat. System messages may appear anywhere; they
// are joined, in order, into one system prompt.
type Message struct {
	Role    Role
	Content string
}

// Options tune one call. The zero Options asks for plain text with the
// server's default length and temperature 0 (the most repeatable answer;
// OpenAI reasoning models, which accept no temperature, get none).
type Options struct {
	// JSONSchema, when not nil, asks for a JSON reply matching it: a
	// map[string]any, a json.RawMessage, or any value that marshals to a
	// JSON Schema object. OpenAI-compatible servers get it as
	// response_format json_schema (strict: list every property in
	// "required"); Ollama gets format "json" and Anthropic an instruction,
	// both with the schema in the system prompt. Reply.Text is then the
	// JSON object alone (code fences and a <think> block are removed).
	JSONSchema any
	// MaxTokens caps the reply's length; 0 means the server's default
	// (Anthropic requires one: 2048 then).
	MaxTokens   int
	Temperature float64
}

// Reply is a model's answer.
type Reply struct {
	Text         string
	InputTokens  int // as the server counted them; 0 when it does not say
	OutputTokens int
}

// Client talks to one chat model. It is safe for concurrent use.
type Client struct {
	cfg  Config
	http *http.Client
	llm  llms.Model // for calls without a JSON schema
}

// New returns a client for cfg.Model. It makes no call: use Doctor to check
// the server. It fails with ErrNotConfigured when cfg names no provider or
// no chat model, and with ErrAuth when Anthropic has no key.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("model config: %w", err)
	}
	if cfg.Provider == "" || cfg.Model == "" {
		return nil, &Error{Kind: ErrNotConfigured, Detail: "no chat model configured",
			Hint: "set model.provider and model.model in .quire/config.yaml"}
	}
	c := &Client{cfg: cfg, http: newHTTPClient()}
	m, err := c.model(nil)
	if err != nil {
		return nil, err
	}
	c.llm = m
	return c, nil
}

// Config returns the configuration the client was made with.
func (c *Client) Config() Config { return c.cfg }

// model builds the langchaingo model. rf is the OpenAI response format for
// one call: langchaingo takes it per client, not per call, and a client is
// only a few structs, so a call with a schema gets its own.
func (c *Client) model(rf *openai.ResponseFormat) (llms.Model, error) {
	cfg := c.cfg
	switch cfg.Provider {
	case Ollama:
		opts := []ollama.Option{ollama.WithServerURL(cfg.BaseURL()), ollama.WithModel(cfg.Model),
			ollama.WithHTTPClient(c.http)}
		if cfg.ContextTokens > 0 {
			opts = append(opts, ollama.WithRunnerNumCtx(cfg.ContextTokens))
		}
		return ollama.New(opts...)
	case OpenAI:
		key := cfg.key()
		if key == "" {
			// Local servers want no key, but langchaingo insists on one.
			key = "none"
		}
		opts := []openai.Option{openai.WithBaseURL(cfg.BaseURL()), openai.WithModel(cfg.Model),
			openai.WithToken(key), openai.WithHTTPClient(c.http)}
		if rf != nil {
			opts = append(opts, openai.WithResponseFormat(rf))
		}
		return openai.New(opts...)
	case Anthropic:
		key := cfg.key()
		if key == "" {
			return nil, &Error{Kind: ErrAuth, Endpoint: cfg.BaseURL(), Model: cfg.Model,
				Detail: "no Anthropic API key", Hint: cfg.keyHint()}
		}
		return anthropic.New(anthropic.WithBaseURL(cfg.BaseURL()), anthropic.WithModel(cfg.Model),
			anthropic.WithToken(key), anthropic.WithHTTPClient(c.http))
	}
	return nil, fmt.Errorf("model config: provider %q", cfg.Provider)
}

// Chat sends msgs and returns the whole reply. With opts.JSONSchema set, a
// reply that is not JSON is asked for once more (with the bad reply and a
// correction appended); a second bad one fails with ErrBadJSON. Tokens of
// both attempts are counted.
func (c *Client) Chat(ctx context.Context, msgs []Message, opts Options) (Reply, error) {
	rep, err := c.call(ctx, msgs, opts, nil)
	if err != nil || opts.JSONSchema == nil {
		return rep, err
	}
	if text, ok := jsonText(rep.Text); ok {
		rep.Text = text
		return rep, nil
	}
	retry := append(msgs[:len(msgs):len(msgs)],
		Message{Role: Assistant, Content: rep.Text},
		Message{Role: User, Content: "That reply was not valid JSON. Reply again with only the JSON object."})
	again, err := c.call(ctx, retry, opts, nil)
	again.InputTokens += rep.InputTokens
	again.OutputTokens += rep.OutputTokens
	if err != nil {
		return again, err
	}
	if text, ok := jsonText(again.Text); ok {
		again.Text = text
		return again, nil
	}
	return again, c.badJSON(again.Text)
}

// Stream sends msgs and calls onDelta with each piece of text as it
// arrives; the calls are sequential and all happen before Stream returns.
// The Reply holds the whole text and the token counts. With
// opts.JSONSchema set a bad reply fails with ErrBadJSON but is not retried,
// since its pieces were already delivered; the Reply still holds its text.
func (c *Client) Stream(ctx context.Context, msgs []Message, opts Options, onDelta func(string)) (Reply, error) {
	if onDelta == nil {
		onDelta = func(string) {}
	}
	rep, err := c.call(ctx, msgs, opts, onDelta)
	if err != nil || opts.JSONSchema == nil {
		return rep, err
	}
	if text, ok := jsonText(rep.Text); ok {
		rep.Text = text
		return rep, nil
	}
	return rep, c.badJSON(rep.Text)
}

func (c *Client) badJSON(text string) error {
	if len(text) > 120 {
		text = text[:120] + "…"
	}
	return &Error{Kind: ErrBadJSON, Endpoint: c.cfg.BaseURL(), Model: c.cfg.Model,
		Detail: fmt.Sprintf("%s did not reply with JSON: %q", c.cfg.Model, text),
		Hint:   "a larger or instruction-tuned model follows JSON instructions better"}
}

// call makes one request under Config.Timeout.
func (c *Client) call(ctx context.Context, msgs []Message, opts Options, onDelta func(string)) (Reply, error) {
	if len(msgs) == 0 {
		return Reply{}, errors.New("chat: no messages")
	}
	model := c.llm
	var callOpts []llms.CallOption
	if opts.MaxTokens > 0 {
		callOpts = append(callOpts, llms.WithMaxTokens(opts.MaxTokens))
		if c.cfg.Provider == OpenAI && !strings.Contains(c.cfg.BaseURL(), "api.openai.com") {
			// langchaingo sends max_completion_tokens, which only OpenAI's
			// own API is sure to know; local servers read max_tokens.
			callOpts = append(callOpts, openai.WithLegacyMaxTokensField())
		}
	}
	callOpts = append(callOpts, llms.WithTemperature(opts.Temperature))
	if opts.JSONSchema != nil {
		switch c.cfg.Provider {
		case OpenAI:
			rf, err := responseFormat(opts.JSONSchema)
			if err != nil {
				return Reply{}, fmt.Errorf("chat: %w", err)
			}
			if model, err = c.model(rf); err != nil {
				return Reply{}, err
			}
		case Ollama:
			callOpts = append(callOpts, llms.WithJSONMode())
			msgs = withInstruction(msgs, opts.JSONSchema)
		case Anthropic:
			// No prefill ("{" as the assistant's turn): not every Claude
			// model accepts one. The instruction plus jsonText's cleanup
			// and Chat's retry cover it.
			msgs = withInstruction(msgs, opts.JSONSchema)
		}
	}
	if onDelta != nil {
		callOpts = append(callOpts, llms.WithStreamingFunc(func(_ context.Context, b []byte) error {
			if len(b) > 0 {
				onDelta(string(b))
			}
			return nil
		}))
	}

	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	ctx, x := withExchange(ctx)
	start := time.Now()
	resp, err := model.GenerateContent(ctx, toLangchain(msgs), callOpts...)
	if err == nil && ctx.Err() != nil {
		// langchaingo's OpenAI and Ollama streams end quietly with a
		// partial reply when the context ends; that is a timeout, not an
		// answer.
		err = ctx.Err()
	}
	if err == nil && x.redirected() {
		// langchaingo's Ollama client reads a 3xx's empty body as an
		// empty answer.
		err = errors.New("redirected")
	}
	if err != nil {
		return Reply{}, c.cfg.failure(ctx, start, c.cfg.Model, x, err)
	}
	return replyOf(resp), nil
}

// toLangchain joins the system messages into one leading system message
// (Anthropic's API has a single system prompt; the others accept this
// shape too) and converts the rest in order.
func toLangchain(msgs []Message) []llms.MessageContent {
	var system []string
	out := make([]llms.MessageContent, 0, len(msgs)+1)
	for _, m := range msgs {
		switch m.Role {
		case System:
			system = append(system, m.Content)
		case Assistant:
			out = append(out, llms.TextParts(llms.ChatMessageTypeAI, m.Content))
		default:
			out = append(out, llms.TextParts(llms.ChatMessageTypeHuman, m.Content))
		}
	}
	if len(system) > 0 {
		out = append([]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, strings.Join(system, "\n\n"))}, out...)
	}
	return out
}

// replyOf joins the text of every choice (Anthropic returns one per content
// block) and reads the token counts under either provider's names.
func replyOf(resp *llms.ContentResponse) Reply {
	var r Reply
	var b strings.Builder
	for _, ch := range resp.Choices {
		b.WriteString(ch.Content)
		if r.InputTokens == 0 && r.OutputTokens == 0 {
			r.InputTokens = intOf(ch.GenerationInfo, "PromptTokens", "InputTokens")
			r.OutputTokens = intOf(ch.GenerationInfo, "CompletionTokens", "OutputTokens")
		}
	}
	r.Text = b.String()
	return r
}

func intOf(info map[string]any, keys ...string) int {
	for _, k := range keys {
		if n, ok := info[k].(int); ok && n != 0 {
			return n
		}
	}
	return 0
}
