package search

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/bm25"
)

// fakeEndpoint scores a text by where its number falls in prefer, and
// records what it was sent.
type fakeEndpoint struct {
	remote bool
	err    error
	sent   []string
}

func (f *fakeEndpoint) Rerank(_ context.Context, _ string, texts []string) ([]float64, error) {
	f.sent = append(f.sent, texts...)
	if f.err != nil {
		return nil, f.err
	}
	out := make([]float64, len(texts))
	for i, t := range texts {
		if strings.Contains(t, "note 3") {
			out[i] = 10 // the endpoint's pick, wherever keywords put it
		}
	}
	return out, nil
}

func (f *fakeEndpoint) Remote() bool { return f.remote }

func endpointSearcher(t *testing.T) *Searcher {
	ix, err := bm25.Open(filepath.Join(t.TempDir(), "bm25"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	var docs []bm25.Doc
	for i := range 6 {
		body := fmt.Sprintf("note %d about the cheese cellar%s", i, strings.Repeat(" cheese", 6-i))
		docs = append(docs, bm25.Doc{ID: fmt.Sprintf("n%d.md#0", i), Path: fmt.Sprintf("n%d.md", i), Lang: "en", Body: body, Text: body})
	}
	if err := ix.Replace(nil, docs); err != nil {
		t.Fatal(err)
	}
	return &Searcher{BM25: ix, Langs: []string{"en"}, Rerank: RerankEndpoint}
}

// TestEndpointReranks: the endpoint's scores order the pool; a remote
// endpoint never sees a pool holding a private passage, and a failing one
// leaves the built-in model to answer, each with a warning.
func TestEndpointReranks(t *testing.T) {
	ctx := context.Background()
	s := endpointSearcher(t)
	ep := &fakeEndpoint{}
	s.Endpoint = ep
	r, err := s.Query(ctx, "cheese", 3, BM25)
	if err != nil {
		t.Fatal(err)
	}
	if r.Passages[0].Path != "n3.md" || r.Warning != "" {
		t.Errorf("first %s, warning %q; want the endpoint's pick n3.md and no warning", r.Passages[0].Path, r.Warning)
	}

	ep = &fakeEndpoint{remote: true}
	s.Endpoint, s.Private = ep, func(p string) bool { return p == "n5.md" }
	r, err = s.Query(ctx, "cheese", 3, BM25)
	if err != nil {
		t.Fatal(err)
	}
	if len(ep.sent) != 0 || !strings.Contains(r.Warning, "private") {
		t.Errorf("remote endpoint sent %d texts with a private passage in the pool, warning %q", len(ep.sent), r.Warning)
	}

	s.Endpoint, s.Private = &fakeEndpoint{err: errors.New("status 503")}, nil
	r, err = s.Query(ctx, "cheese", 3, BM25)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Warning, "status 503") || len(r.Passages) != 3 {
		t.Errorf("failing endpoint: %d passages, warning %q; want results and the failure said", len(r.Passages), r.Warning)
	}
}
