package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/server"
	"github.com/quire-app/quire/sidecar/state"
	"github.com/quire-app/quire/sidecar/vault"
)

// remote is a running sidecar that serves the vault. While one runs, it
// holds the index's lock, so commands that read the index ask it through
// the protocol instead (with the client the server's tests use).
type remote struct {
	c  *server.Client
	cf server.ConnFile
}

// attach returns the sidecar serving c's vault, or nil when none does
// (no connection file, its process gone, or it does not answer), in which
// case the command opens the index itself.
func attach(ctx context.Context, c common) *remote {
	cl, cf, err := server.Attach(ctx, state.Resolve(c.vault, c.state), "quire-cli "+version)
	if err != nil {
		return nil
	}
	if !sameDir(cl.Welcome().Vault, c.vault) {
		cl.Close()
		return nil
	}
	return &remote{c: cl, cf: cf}
}

func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		aa, _ := filepath.Abs(a)
		bb, _ := filepath.Abs(b)
		return aa == bb
	}
	return os.SameFile(sa, sb)
}

func (r *remote) close() { r.c.Close() }

// search is cmdSearch through the sidecar; it prints what the in-process
// search prints.
func (r *remote) search(ctx context.Context, c common, query string, k int, ch search.Channel, explain bool) error {
	began := time.Now()
	res, err := r.c.Search(ctx, proto.SearchQuery{Query: query, K: k, Channel: proto.Channel(ch)})
	if err != nil {
		return fmt.Errorf("search through the sidecar (pid %d): %w", r.cf.PID, err)
	}
	took := time.Since(began)
	if explain {
		st, err := r.c.Status(ctx)
		if err != nil {
			return err
		}
		s := &search.Searcher{Langs: index.ByCount(st.Languages)}
		fmt.Fprint(os.Stderr, s.Explain(query))
	}
	ps := make([]search.Passage, len(res.Passages))
	for i, p := range res.Passages {
		ps[i] = search.Passage{ID: p.ID, Path: p.Path, Title: p.Title, Crumbs: index.Breadcrumb(p.Title, p.HeadingPath),
			Start: p.Start, End: p.End, Text: p.Text, Score: p.Score}
	}
	return printSearch(c, query, search.Result{Passages: ps, Channel: search.Channel(res.Channel), Warning: res.Warning}, took)
}

// status is cmdStatus through the sidecar.
func (r *remote) status(ctx context.Context, c common) error {
	st, err := r.c.Status(ctx)
	if err != nil {
		return fmt.Errorf("status from the sidecar (pid %d): %w", r.cf.PID, err)
	}
	out := statusOut{Vault: c.vault, State: state.Resolve(c.vault, c.state), Notes: st.Notes, Chunks: st.Chunks,
		Fingerprint: st.Fingerprint.Chunking, Skipped: []vault.Skip{}, Warnings: []vault.Skip{}, Languages: st.Languages}
	if !st.LastIndexed.IsZero() {
		out.LastIndex = &st.LastIndexed
	}
	if cfg, _, err := config.Load(out.State); err == nil {
		out.Model = modelStatus(cfg)
	}
	if st.Fingerprint.Embedder != "" {
		out.Vectors = &index.DenseStats{Embedder: st.Fingerprint.Embedder, Passages: st.Coverage.VectorsTotal, Embedded: st.Coverage.VectorsDone}
	}
	for _, s := range st.Skipped {
		out.Skipped = append(out.Skipped, vault.Skip{Path: s.Path, Reason: s.Reason})
	}
	for _, s := range st.Warnings {
		out.Warnings = append(out.Warnings, vault.Skip{Path: s.Path, Reason: s.Reason})
	}
	if c.json {
		return printJSON(out)
	}
	indexing := ""
	if st.Indexing {
		indexing = ", indexing now"
	}
	out.print(fmt.Sprintf("pid %d on 127.0.0.1:%d (version %s%s)", r.cf.PID, r.cf.Port, st.Version, indexing))
	return nil
}
