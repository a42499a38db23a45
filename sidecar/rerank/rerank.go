// Package rerank is the client of a reranker model server: Hugging Face
// text-embeddings-inference (POST /rerank) and the Cohere-style
// POST /v1/rerank that Cohere, Jina, llama.cpp's server and vLLM serve.
// It scores texts against a query and knows nothing of notes: the caller
// keeps private passages away from a Remote client.
package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/llm"
)

// MaxResponseBytes bounds what one answer may hold: a score per text is a
// few dozen bytes, and a server that echoes the documents back sends at
// most the batch it was given; more is a broken or hostile server.
const MaxResponseBytes = 4 << 20

// teiBatch is how many texts go in one TEI request: its server refuses a
// request of more than --max-client-batch-size texts, 32 by default.
const teiBatch = 32

// Client scores passages against a query on one configured server.
type Client struct {
	cfg  config.Rerank
	url  string // the full URL requests are posted to
	http *http.Client
}

// New checks c and returns a client posting to its endpoint with
// httpClient (nil for a plain one). httpClient is copied, not changed:
// the copy follows a redirect only to the same scheme and host, so a
// server cannot send passages on to another machine. The call's deadline
// is c.Timeout, applied per Rerank call.
func New(c config.Rerank, httpClient *http.Client) (*Client, error) {
	if c.Provider == "" {
		return nil, errors.New("rerank: no provider configured")
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("rerank.%w", err)
	}
	hc := &http.Client{}
	if httpClient != nil {
		cp := *httpClient
		hc = &cp
	}
	hc.CheckRedirect = sameHost
	return &Client{cfg: c, url: rerankURL(c), http: hc}, nil
}

// sameHost refuses a redirect to another scheme or host, and a chain of
// more than three.
func sameHost(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || !strings.EqualFold(req.URL.Host, first.Host) {
		return fmt.Errorf("redirect to %s://%s refused: passages go to the configured host only", req.URL.Scheme, req.URL.Host)
	}
	if len(via) > 3 {
		return errors.New("more than 3 redirects")
	}
	return nil
}

// rerankURL is where requests go: an endpoint whose path ends in /rerank
// as it is; one ending in /v1 or /v2 (vLLM's and OpenAI-style base URLs)
// with /rerank added; else the provider's documented path.
func rerankURL(c config.Rerank) string {
	base := c.BaseURL()
	u, err := url.Parse(base)
	if err != nil { // Validate parsed it; keep the base as it is
		return base
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/rerank"):
		return base
	case strings.HasSuffix(p, "/v1") || strings.HasSuffix(p, "/v2"):
		return base + "/rerank"
	case c.Provider == config.RerankTEI:
		return base + "/rerank"
	case c.Provider == config.RerankCohere:
		return base + "/v2/rerank"
	}
	return base + "/v1/rerank"
}

// Remote reports whether the server is off this machine (rerank.remote,
// read as model.remote is): private passages must never be sent to it.
func (c *Client) Remote() bool { return !c.cfg.Local() }

// Rerank returns one score per text, in the order of texts: higher is
// more relevant to query. Scores are the server's own (TEI's are in 0..1,
// Cohere-style ones by model), comparable within one call only. A server
// that answers with a status other than 200, with an answer over
// MaxResponseBytes, or with a score missing, repeated or out of range is
// an error naming the URL; so is running past the configured timeout.
func (c *Client) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	batch := len(texts)
	if c.cfg.Provider == config.RerankTEI {
		batch = teiBatch
	}
	scores := make([]float64, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		part := texts[start:min(start+batch, len(texts))]
		got, err := c.call(ctx, query, part)
		if err != nil {
			if parent.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("no answer within %s (rerank.timeout): %w", c.cfg.Timeout, ctx.Err())
			}
			return nil, fmt.Errorf("rerank %s: %w", c.url, err)
		}
		scores = append(scores, got...)
	}
	return scores, nil
}

// A result is one scored text in either API's answer.
type result struct {
	Index int      `json:"index"`
	Score *float64 `json:"score"`           // TEI
	Rel   *float64 `json:"relevance_score"` // Cohere-style
}

// call sends one request and returns the scores of texts in their order.
func (c *Client) call(ctx context.Context, query string, texts []string) ([]float64, error) {
	var body any
	if c.cfg.Provider == config.RerankTEI {
		// truncate: TEI refuses a text longer than the model's input
		// instead of cutting it; raw_scores false gives 0..1.
		body = map[string]any{"query": query, "texts": texts, "truncate": true, "raw_scores": false}
	} else {
		// return_documents false: Jina echoes every text back by default.
		req := map[string]any{"query": query, "documents": texts, "top_n": len(texts), "return_documents": false}
		if c.cfg.Model != "" {
			req["model"] = c.cfg.Model
		}
		body = req
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if key := c.cfg.Key(); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is already in the message
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s%s", resp.StatusCode, snippet(data), c.hint(resp.StatusCode))
	}
	if len(data) > MaxResponseBytes {
		return nil, fmt.Errorf("answer over %d MiB", MaxResponseBytes>>20)
	}
	var results []result
	if c.cfg.Provider == config.RerankTEI {
		err = json.Unmarshal(data, &results)
	} else {
		var r struct {
			Results []result `json:"results"`
		}
		err = json.Unmarshal(data, &r)
		results = r.Results
	}
	if err != nil {
		return nil, fmt.Errorf("decode answer: %w", err)
	}
	return inOrder(results, len(texts))
}

// inOrder puts the scores back in the order of the texts: both APIs
// answer sorted by score, each result naming its text's index. Every text
// must be scored exactly once, or the ranking built on it would be wrong.
func inOrder(results []result, n int) ([]float64, error) {
	scores := make([]float64, n)
	seen := make([]bool, n)
	for _, r := range results {
		if r.Index < 0 || r.Index >= n {
			return nil, fmt.Errorf("answer scores index %d of %d texts", r.Index, n)
		}
		if seen[r.Index] {
			return nil, fmt.Errorf("answer scores text %d twice", r.Index)
		}
		s := r.Score
		if s == nil {
			s = r.Rel
		}
		if s == nil {
			return nil, fmt.Errorf("answer gives text %d no score", r.Index)
		}
		scores[r.Index], seen[r.Index] = *s, true
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("answer scores %d of %d texts (text %d missing)", len(results), n, i)
		}
	}
	return scores, nil
}

// hint says what to do about a refusal the user can fix.
func (c *Client) hint(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if env := c.cfg.KeyEnv(); env != "" && c.cfg.APIKey == "" {
			return " (check " + env + ")"
		}
		return " (check rerank.api_key)"
	case status == http.StatusNotFound:
		return " (check rerank.endpoint and rerank.provider)"
	}
	return ""
}

// snippet is the start of an error answer, on one line, for the message.
func snippet(data []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(data), "?")), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	if s == "" {
		return "(empty answer)"
	}
	return s
}

// Doctor is the reranker's line of `quire doctor`: none configured
// passes; else a tiny request, two short texts for one query, must come
// back with two scores.
func Doctor(ctx context.Context, c config.Rerank, httpClient *http.Client) llm.Check {
	const name = "reranker"
	if c.Provider == "" {
		return llm.Check{Name: name, OK: true, Detail: "none configured"}
	}
	cl, err := New(c, httpClient)
	if err != nil {
		return llm.Check{Name: name, Detail: err.Error(), Fix: "correct rerank: in .quire/config.yaml"}
	}
	where := "remote: passages sent to it leave this machine"
	if !cl.Remote() {
		where = "on this machine"
	}
	start := time.Now()
	scores, err := cl.Rerank(ctx, "what curdles milk", []string{"Rennet curdles milk.", "The sky is blue."})
	if err != nil {
		return llm.Check{Name: name, Detail: err.Error(), Fix: "start the server or correct rerank: in .quire/config.yaml; until then the built-in order stands"}
	}
	return llm.Check{Name: name, OK: true, Detail: fmt.Sprintf("%s at %s, %s: scored %d texts in %s",
		c.Provider, cl.url, where, len(scores), time.Since(start).Round(time.Millisecond))}
}
