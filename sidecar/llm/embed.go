package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms/openai"
)

// batchSize is how many texts go in one embedding request: large enough to
// keep a local server busy, small enough that one request stays well inside
// the timeout on a CPU-only machine.
const batchSize = 32

// Embedder turns texts into vectors with Config.EmbedModel on an Ollama or
// OpenAI-compatible server. It adds the prefixes the model was trained with
// (documents and queries differ for nomic, e5, qwen3-embedding and others),
// sends batches of 32, and applies Config.Timeout to each batch. It is safe
// for concurrent use.
type Embedder struct {
	cfg    Config
	http   *http.Client
	openai *openai.LLM // nil for Ollama
	prefix prefixes
}

// NewEmbedder returns an embedder for cfg.EmbedModel. It fails with
// ErrNotConfigured when cfg names no provider or no embedding model.
func NewEmbedder(cfg Config) (*Embedder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("model config: %w", err)
	}
	if cfg.Provider == "" || cfg.EmbedModel == "" {
		return nil, &Error{Kind: ErrNotConfigured, Detail: "no embedding model configured",
			Hint: "set model.embed_model in .quire/config.yaml"}
	}
	e := &Embedder{cfg: cfg, http: newHTTPClient(), prefix: prefixFor(cfg.EmbedModel)}
	if cfg.Provider == OpenAI {
		key := cfg.key()
		if key == "" {
			key = "none" // local servers want none; langchaingo insists
		}
		m, err := openai.New(openai.WithBaseURL(cfg.BaseURL()), openai.WithToken(key),
			openai.WithEmbeddingModel(cfg.EmbedModel), openai.WithModel(cfg.EmbedModel),
			openai.WithHTTPClient(e.http))
		if err != nil {
			return nil, fmt.Errorf("embedder: %w", err)
		}
		e.openai = m
	}
	return e, nil
}

// Remote reports whether the embedder sends texts off this machine
// (Config.Local false): the index then embeds no private passage.
func (e *Embedder) Remote() bool { return !e.cfg.Local() }

// Name identifies the embedder for the vector index's fingerprint, e.g.
// "ollama:nomic-embed-text".
func (e *Embedder) Name() string { return e.cfg.Provider + ":" + e.cfg.EmbedModel }

// Embed is EmbedDocuments: the shape search and index want.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.EmbedDocuments(ctx, texts)
}

// EmbedDocuments embeds passages to be searched, with the model's
// document prefix.
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	return e.embed(ctx, texts, e.prefix.document)
}

// EmbedQuery embeds search queries, with the model's query prefix or
// instruction.
func (e *Embedder) EmbedQuery(ctx context.Context, queries []string) ([][]float32, error) {
	return e.embed(ctx, queries, e.prefix.query)
}

func (e *Embedder) embed(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batchSize {
		batch := texts[start:min(start+batchSize, len(texts))]
		in := make([]string, len(batch))
		for i, t := range batch {
			in[i] = prefix + t
		}
		vecs, err := e.batch(ctx, in)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(in) {
			return nil, &Error{Kind: ErrServer, Endpoint: e.cfg.BaseURL(), Model: e.cfg.EmbedModel,
				Detail: fmt.Sprintf("%s returned %d vectors for %d texts", e.cfg.EmbedModel, len(vecs), len(in))}
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (e *Embedder) batch(ctx context.Context, texts []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	ctx, x := withExchange(ctx)
	start := time.Now()
	var vecs [][]float32
	var err error
	if e.openai != nil {
		vecs, err = e.openai.CreateEmbedding(ctx, texts)
	} else {
		vecs, err = e.ollama(ctx, texts)
	}
	if err != nil {
		return nil, e.cfg.failure(ctx, start, e.cfg.EmbedModel, x, err)
	}
	return vecs, nil
}

// ollama calls /api/embed directly: langchaingo's Ollama client sends one
// request per text, and this endpoint takes a whole batch.
func (e *Embedder) ollama(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(map[string]any{"model": e.cfg.EmbedModel, "input": texts})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.cfg.BaseURL()+"/api/embed", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// The transport kept the status and body for failure().
		return nil, fmt.Errorf("embed: HTTP %d", resp.StatusCode)
	}
	var r struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("embed: decode reply: %w", err)
	}
	return r.Embeddings, nil
}

// prefixes are the strings a model expects before documents and queries.
type prefixes struct{ document, query string }

// knownPrefixes maps a model-name fragment to its prefixes, from each
// model's card. Models not listed (bge-m3, all-minilm, OpenAI's) take none.
var knownPrefixes = []struct {
	fragment string
	prefixes
}{
	{"nomic-embed", prefixes{"search_document: ", "search_query: "}},
	{"e5-mistral", prefixes{"", "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: "}},
	{"e5-", prefixes{"passage: ", "query: "}}, // e5-*, multilingual-e5-*
	{"qwen3-embedding", prefixes{"", "Instruct: Given a search query, retrieve relevant passages that answer the query\nQuery: "}},
	{"mxbai-embed", prefixes{"", "Represent this sentence for searching relevant passages: "}},
	{"snowflake-arctic-embed", prefixes{"", "Represent this sentence for searching relevant passages: "}},
}

func prefixFor(model string) prefixes {
	m := strings.ToLower(model)
	for _, k := range knownPrefixes {
		if strings.Contains(m, k.fragment) {
			return k.prefixes
		}
	}
	return prefixes{}
}
