// Package llmtest is a fake model server for tests: one httptest server that
// speaks the three wire APIs Quire's model clients use — OpenAI-compatible
// (/v1/chat/completions with SSE streaming and response_format,
// /v1/embeddings), Ollama (/api/chat with NDJSON streaming and format,
// /api/embed, /api/tags) and Anthropic (/v1/messages with SSE streaming).
//
// A test scripts it: Push queues canned replies (text, stream chunks, a delay,
// an HTTP error), SetResponder computes replies from requests, SetModels
// limits which model names exist, SetAPIKey demands a key, and Requests
// returns every request received so the test can assert what the client
// sent. It listens on 127.0.0.1 only.
//
//	s := llmtest.New(t)
//	s.Push(llmtest.Reply{Chunks: []string{"Quire is ", "a companion [1]."}})
//	c, _ := llm.New(llm.Config{Provider: llm.Ollama, Endpoint: s.URL, Model: "m", Timeout: time.Second})
//	rep, err := c.Stream(ctx, msgs, llm.Options{}, onDelta)
//	sent := s.Last(t).Messages // what the model was given
package llmtest

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// API names which endpoint a request hit.
type API string

// The endpoints the server answers.
const (
	OpenAIChat        API = "openai.chat"
	OpenAIEmbeddings  API = "openai.embeddings"
	OllamaChat        API = "ollama.chat"
	OllamaEmbed       API = "ollama.embed"
	OllamaTags        API = "ollama.tags"
	AnthropicMessages API = "anthropic.messages"
)

// Reply is one scripted answer. The zero Reply answers "ok".
type Reply struct {
	// Text is the reply's content. When streaming it is sent in Chunks, or
	// word by word when Chunks is empty.
	Text   string
	Chunks []string
	// Delay holds the response back before its first byte; ChunkDelay is
	// the pause between streamed chunks. Both give up when the client goes.
	Delay      time.Duration
	ChunkDelay time.Duration
	// Status, when not 0 or 200, answers with that HTTP status and Error as
	// the message, in the provider's error shape.
	Status int
	Error  string
	// InputTokens and OutputTokens are the usage reported; when 0 they are
	// counted as words in the request's messages and in Text.
	InputTokens, OutputTokens int
	// Embeddings answers an embedding request; when nil each input gets a
	// deterministic unit vector of Server.Dims() values from its text.
	Embeddings [][]float32
}

// Message is one chat message as the server received it.
type Message struct {
	Role    string
	Content string
}

// Request is what the server received.
type Request struct {
	API    API
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// JSON is Body decoded (nil when it is not a JSON object).
	JSON map[string]any

	Model    string
	Stream   bool
	System   string // Anthropic's top-level system prompt
	Messages []Message
	Input    []string // embedding inputs
}

// Server is the fake. Its settings may change between requests, from any
// goroutine.
type Server struct {
	*httptest.Server

	mu      sync.Mutex
	models  []string
	apiKey  string
	dims    int
	def     Reply
	respond func(Request) Reply
	queue   []Reply
	reqs    []Request
}

// SetModels lists the model names that exist; a request for any other
// gets the provider's 404. None (the default) means every name exists,
// though /api/tags then lists none.
func (s *Server) SetModels(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = names
}

// SetAPIKey demands a key: it must arrive as "Authorization: Bearer KEY"
// (OpenAI-compatible) or "x-api-key: KEY" (Anthropic), or the request gets
// 401. Empty (the default) accepts anything.
func (s *Server) SetAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiKey = key
}

// SetDims sets the length of generated embeddings (default 8).
func (s *Server) SetDims(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dims = n
}

// Dims is the length of generated embeddings.
func (s *Server) Dims() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dims
}

// SetResponder computes the reply from the request when the queue is empty,
// for a fake that must react to what it was sent (cite an id it was given,
// answer in the question's language). nil restores the default reply.
func (s *Server) SetResponder(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
}

// SetDefault sets the reply given when the queue is empty (default: "ok").
func (s *Server) SetDefault(r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = r
}

// New starts a server on 127.0.0.1 and closes it when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{dims: 8, def: Reply{Text: "ok"}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Push queues replies; each request takes the next one, then Default.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r...)
}

// Requests returns a copy of every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Last returns the latest request received; it fails the test if none came.
func (s *Server) Last(t testing.TB) Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		t.Fatal("llmtest: no request received")
	}
	return s.reqs[len(s.reqs)-1]
}

func (s *Server) next(req Request) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	respond, def := s.respond, s.def
	s.mu.Unlock()
	if respond != nil {
		return respond(req)
	}
	return def
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	_ = json.Unmarshal(body, &req.JSON)
	switch r.URL.Path {
	case "/v1/chat/completions":
		req.API = OpenAIChat
	case "/v1/embeddings":
		req.API = OpenAIEmbeddings
	case "/api/chat":
		req.API = OllamaChat
	case "/api/embed":
		req.API = OllamaEmbed
	case "/api/tags":
		req.API = OllamaTags
	case "/v1/messages":
		req.API = AnthropicMessages
	default:
		http.NotFound(w, r)
		return
	}
	req.fill()
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	models, apiKey, dims := slices.Clone(s.models), s.apiKey, s.dims
	s.mu.Unlock()

	if req.API == OllamaTags {
		tags(w, models)
		return
	}
	if apiKey != "" && !keyOK(req, apiKey) {
		writeError(w, req.API, http.StatusUnauthorized, "invalid api key")
		return
	}
	if req.Model != "" && len(models) > 0 && !has(models, req.API, req.Model) {
		writeError(w, req.API, http.StatusNotFound, notFound(req.API, req.Model))
		return
	}
	rep := s.next(req)
	if !sleep(r, rep.Delay) {
		return
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		writeError(w, req.API, rep.Status, rep.Error)
		return
	}
	switch req.API {
	case OpenAIChat:
		s.openAIChat(w, r, req, rep)
	case OpenAIEmbeddings:
		vecs := vectors(req.Input, rep, dims)
		data := make([]map[string]any, len(vecs))
		for i, v := range vecs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		writeJSON(w, map[string]any{"object": "list", "model": req.Model, "data": data,
			"usage": map[string]int{"prompt_tokens": words(req.Input...), "total_tokens": words(req.Input...)}})
	case OllamaChat:
		s.ollamaChat(w, r, req, rep)
	case OllamaEmbed:
		writeJSON(w, map[string]any{"model": req.Model, "embeddings": vectors(req.Input, rep, dims)})
	case AnthropicMessages:
		s.anthropic(w, r, req, rep)
	}
}

// fill decodes the fields tests assert on most.
func (req *Request) fill() {
	j := req.JSON
	req.Model, _ = j["model"].(string)
	switch req.API {
	case OllamaChat:
		// Ollama streams unless told "stream": false.
		stream, ok := j["stream"].(bool)
		req.Stream = stream || !ok
	default:
		req.Stream, _ = j["stream"].(bool)
	}
	req.System = text(j["system"])
	if msgs, ok := j["messages"].([]any); ok {
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			role, _ := mm["role"].(string)
			req.Messages = append(req.Messages, Message{Role: role, Content: text(mm["content"])})
		}
	}
	switch in := j["input"].(type) {
	case string:
		req.Input = []string{in}
	case []any:
		for _, x := range in {
			s, _ := x.(string)
			req.Input = append(req.Input, s)
		}
	}
}

// text flattens a content field: a string, or a list of {type:text,text}
// parts (OpenAI multi-content, Anthropic content blocks).
func text(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			pm, _ := p.(map[string]any)
			if t, ok := pm["text"].(string); ok {
				b.WriteString(t)
			}
		}
		return b.String()
	}
	return ""
}

// has reports whether model is in Models; like Ollama, a name with no tag
// means ":latest" on the Ollama endpoints.
func has(models []string, api API, model string) bool {
	if slices.Contains(models, model) {
		return true
	}
	ollama := api == OllamaChat || api == OllamaEmbed
	return ollama && !strings.Contains(model, ":") && slices.Contains(models, model+":latest")
}

func keyOK(req Request, key string) bool {
	switch req.API {
	case AnthropicMessages:
		return req.Header.Get("x-api-key") == key
	case OllamaChat, OllamaEmbed:
		return true // Ollama has no keys.
	}
	return req.Header.Get("Authorization") == "Bearer "+key
}

func notFound(api API, model string) string {
	switch api {
	case OllamaChat, OllamaEmbed:
		return `model "` + model + `" not found, try pulling it first`
	case AnthropicMessages:
		return "model: " + model
	}
	return "The model `" + model + "` does not exist or you do not have access to it."
}

// writeError answers in the provider's error shape.
func writeError(w http.ResponseWriter, api API, status int, msg string) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var body any
	switch api {
	case OllamaChat, OllamaEmbed, OllamaTags:
		body = map[string]any{"error": msg}
	case AnthropicMessages:
		kind := map[int]string{401: "authentication_error", 403: "permission_error", 404: "not_found_error",
			429: "rate_limit_error", 529: "overloaded_error"}[status]
		if kind == "" {
			kind = "api_error"
		}
		body = map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}}
	default:
		code := map[int]string{401: "invalid_api_key", 404: "model_not_found"}[status]
		body = map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": code}}
	}
	_ = json.NewEncoder(w).Encode(body)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// sleep waits d unless the client goes away first; it reports whether to go on.
func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// chunks splits a reply for streaming: the scripted chunks, or the text
// word by word with each word keeping its trailing space.
func (rep Reply) chunks() []string {
	if len(rep.Chunks) > 0 {
		return rep.Chunks
	}
	if rep.Text == "" {
		return nil
	}
	return strings.SplitAfter(rep.Text, " ")
}

func (rep Reply) full() string {
	if len(rep.Chunks) > 0 {
		return strings.Join(rep.Chunks, "")
	}
	return rep.Text
}

func (rep Reply) usage(req Request) (in, out int) {
	in, out = rep.InputTokens, rep.OutputTokens
	if in == 0 {
		parts := []string{req.System}
		for _, m := range req.Messages {
			parts = append(parts, m.Content)
		}
		in = words(parts...)
	}
	if out == 0 {
		out = words(rep.full())
	}
	return in, out
}

func words(s ...string) int {
	n := 0
	for _, x := range s {
		n += len(strings.Fields(x))
	}
	return n
}

// vectors returns the scripted embeddings or one deterministic unit vector
// per input, so tests can check order and batching.
func vectors(input []string, rep Reply, dims int) [][]float32 {
	if rep.Embeddings != nil {
		return rep.Embeddings
	}
	out := make([][]float32, len(input))
	for i, in := range input {
		out[i] = Vector(in, dims)
	}
	return out
}

// Vector is the embedding the server gives text when none is scripted: a
// unit vector of dims values seeded by the text's hash.
func Vector(text string, dims int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	x := h.Sum64()
	v := make([]float32, dims)
	var norm float64
	for i := range v {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v[i] = float32(int64(x%2001)-1000) / 1000
		norm += float64(v[i]) * float64(v[i])
	}
	n := float32(math.Sqrt(norm))
	if n == 0 {
		v[0], n = 1, 1
	}
	for i := range v {
		v[i] /= n
	}
	return v
}

// Words is an embedding whose cosine means something: the normalised sum
// of one Vector per lower-cased word of text, so texts that share words
// are close and texts that share none are as far apart as chance puts
// them. A test whose dense search must find a passage scripts it with
// SetResponder.
func Words(text string, dims int) []float32 {
	v := make([]float32, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		for i, x := range Vector(w, dims) {
			v[i] += x
		}
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return Vector(text, dims)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

func tags(w http.ResponseWriter, names []string) {
	models := make([]map[string]any, len(names))
	for i, m := range names {
		models[i] = map[string]any{"name": m, "model": m, "size": 1 << 30}
	}
	writeJSON(w, map[string]any{"models": models})
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	var b bytes.Buffer
	if event != "" {
		b.WriteString("event: " + event + "\n")
	}
	b.WriteString("data: ")
	if s, ok := data.(string); ok {
		b.WriteString(s)
	} else {
		j, _ := json.Marshal(data)
		b.Write(j)
	}
	b.WriteString("\n\n")
	_, _ = w.Write(b.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
