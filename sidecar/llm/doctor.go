package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Check is one line of `quire doctor`: what was checked, whether it passed,
// what was seen, and what to do when it did not pass.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Doctor checks cfg end to end: the config itself, the API key, for Ollama
// that the server runs and has the models (/api/tags), then one tiny chat
// call with the chat model and one embedding with the embedding model. It
// stops early when a later check could only repeat an earlier failure.
// No model configured is a passing check: ask then extracts sentences.
func Doctor(ctx context.Context, cfg Config) []Check {
	if cfg.Provider == "" {
		return []Check{{Name: "model", OK: true,
			Detail: "none configured: ask answers with sentences extracted from your notes",
			Fix:    "to have answers written by a model, set model.provider and model.model in .quire/config.yaml"}}
	}
	if err := cfg.Validate(); err != nil {
		return []Check{{Name: "model config", Detail: err.Error(), Fix: "correct model." + key(err) + " in .quire/config.yaml"}}
	}
	where := "remote: notes sent to it leave this machine"
	if cfg.Local() {
		where = "on this machine"
	}
	checks := []Check{{Name: "endpoint", OK: true, Detail: fmt.Sprintf("%s at %s, %s", cfg.Provider, cfg.BaseURL(), where)}}

	if cfg.Provider == Anthropic || (cfg.Provider == OpenAI && !cfg.Local()) {
		if cfg.key() == "" {
			checks = append(checks, Check{Name: "api key", Detail: cfg.KeyEnv() + " is not set", Fix: cfg.keyHint()})
			if cfg.Provider == Anthropic {
				return checks
			}
		} else {
			from := "$" + cfg.KeyEnv()
			if cfg.APIKey != "" {
				from = "Quire's settings"
			}
			checks = append(checks, Check{Name: "api key", OK: true, Detail: "from " + from})
		}
	}

	if cfg.Provider == Ollama {
		models, err := ollamaModels(ctx, cfg)
		if err != nil {
			return append(checks, failed("ollama", err))
		}
		checks = append(checks, Check{Name: "ollama", OK: true, Detail: fmt.Sprintf("running, %d models installed", len(models))})
		missing := false
		for _, m := range []string{cfg.Model, cfg.EmbedModel} {
			if m == "" {
				continue
			}
			if hasModel(models, m) {
				checks = append(checks, Check{Name: "ollama has " + m, OK: true, Detail: "installed"})
			} else {
				missing = true
				checks = append(checks, Check{Name: "ollama has " + m, Detail: m + " is not installed", Fix: "run: ollama pull " + m})
			}
		}
		if missing {
			return checks
		}
	}

	if cfg.Model != "" {
		checks = append(checks, chatCheck(ctx, cfg))
	}
	if cfg.EmbedModel != "" {
		checks = append(checks, embedCheck(ctx, cfg))
	}
	return checks
}

func chatCheck(ctx context.Context, cfg Config) Check {
	name := "chat model " + cfg.Model
	c, err := New(cfg)
	if err != nil {
		return failed(name, err)
	}
	start := time.Now()
	// Enough tokens for a model that thinks first; the reply's content
	// does not matter, only that the call succeeds.
	rep, err := c.Chat(ctx, []Message{{Role: User, Content: "Reply with the single word: OK"}}, Options{MaxTokens: 64})
	if err != nil {
		return failed(name, err)
	}
	return Check{Name: name, OK: true, Detail: fmt.Sprintf("answered in %s (%d tokens in, %d out)",
		time.Since(start).Round(time.Millisecond), rep.InputTokens, rep.OutputTokens)}
}

func embedCheck(ctx context.Context, cfg Config) Check {
	name := "embed model " + cfg.EmbedModel
	e, err := NewEmbedder(cfg)
	if err != nil {
		return failed(name, err)
	}
	start := time.Now()
	vecs, err := e.EmbedQuery(ctx, []string{"quire doctor"})
	if err != nil {
		return failed(name, err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return Check{Name: name, Detail: "returned no vector", Fix: "check that " + cfg.EmbedModel + " is an embedding model"}
	}
	return Check{Name: name, OK: true, Detail: fmt.Sprintf("%d dimensions in %s", len(vecs[0]), time.Since(start).Round(time.Millisecond))}
}

func failed(name string, err error) Check {
	var e *Error
	if errors.As(err, &e) {
		return Check{Name: name, Detail: e.Kind.Error() + ": " + e.Detail, Fix: e.Hint}
	}
	return Check{Name: name, Detail: err.Error()}
}

// key is the YAML key at the start of a Validate error ("timeout: …").
func key(err error) string {
	k, _, _ := strings.Cut(err.Error(), ":")
	return k
}

// ollamaModels lists the installed models from /api/tags.
func ollamaModels(ctx context.Context, cfg Config) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	ctx, x := withExchange(ctx)
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.BaseURL()+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	resp, err := newHTTPClient().Do(req)
	if err == nil && resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		err = fmt.Errorf("tags: HTTP %d", resp.StatusCode)
	}
	if err != nil {
		return nil, cfg.failure(ctx, start, "", x, err)
	}
	defer resp.Body.Close()
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tags); err != nil {
		return nil, cfg.failure(ctx, start, "", x, fmt.Errorf("tags: decode: %w", err))
	}
	names := make([]string, len(tags.Models))
	for i, m := range tags.Models {
		names[i] = m.Name
	}
	return names, nil
}

// hasModel matches a configured name against installed ones; Ollama reads
// a name with no tag as ":latest".
func hasModel(installed []string, model string) bool {
	for _, m := range installed {
		if m == model || m == model+":latest" {
			return true
		}
	}
	return false
}
