package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/server"
	"github.com/quire-app/quire/sidecar/vault"
)

// Local is a Backend over an index opened in this process. The caller
// keeps the index open while the Local is used and closes it after.
type Local struct {
	ix     *index.Index
	cfg    config.Config
	askLog string
	model  ask.Model

	mu       sync.Mutex // one reindex at a time
	searcher atomic.Pointer[search.Searcher]
	// notes is the catalog as of the last pass. This process holds the
	// index's lock and only Reindex writes it, so it cannot go stale, and
	// get_note and tag filters need not read the whole catalog per note.
	notes atomic.Pointer[map[string]index.Entry]
}

// NewLocal returns a Backend over ix. Questions are answered with the
// model cfg names (none: extracted answers) and logged to askLog when it
// is not empty (<state>/asks.jsonl).
func NewLocal(ix *index.Index, cfg config.Config, askLog string) (*Local, error) {
	l := &Local{ix: ix, cfg: cfg, askLog: askLog, model: ask.ModelFor(cfg.Model)}
	if err := l.refresh(); err != nil {
		return nil, err
	}
	return l, nil
}

// refresh rebuilds the searcher after a pass: the vault's languages, which
// decide query translation, may have changed.
func (l *Local) refresh() error {
	entries, err := l.ix.Entries()
	if err != nil {
		return err
	}
	l.notes.Store(&entries)
	langs, err := l.ix.Languages()
	if err != nil {
		return err
	}
	s := &search.Searcher{BM25: l.ix.BM25, Langs: langs, Synonyms: search.SynonymsIf(l.cfg.Search.Synonyms)}
	if l.ix.Dense() {
		s.Dense = l.ix
	}
	l.searcher.Store(s)
	return nil
}

// Status implements Backend.
func (l *Local) Status(ctx context.Context) (Status, error) {
	entries, err := l.ix.Entries()
	if err != nil {
		return Status{}, err
	}
	meta, err := l.ix.Meta()
	if err != nil {
		return Status{}, err
	}
	sum := index.Summarize(entries)
	st := Status{Vault: l.ix.Vault, Via: "this process", Notes: len(entries), Chunks: sum.Chunks, Fingerprint: l.ix.Fingerprint(),
		Languages: sum.Languages, Skipped: files(meta.Skipped), Warnings: files(sum.Warnings)}
	if !meta.LastIndex.IsZero() {
		st.LastIndexed = meta.LastIndex.UTC().Format(time.RFC3339)
	}
	if l.ix.Dense() {
		ds := l.ix.DenseStatsOf(entries)
		st.Vectors = newVectors(ds.Embedder, ds.Embedded, ds.Passages)
	}
	return st, nil
}

func files(skips []vault.Skip) []File {
	out := make([]File, len(skips))
	for i, s := range skips {
		out[i] = File{Path: s.Path, Reason: s.Reason}
	}
	return out
}

// Reindex implements Backend: an index pass (after forgetting every note
// when full), a compaction so that scores repeat, and vectors for the new
// passages when an embedder is enabled.
func (l *Local) Reindex(ctx context.Context, full bool) (Reindexed, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	began := time.Now()
	if full {
		if err := l.ix.Invalidate(); err != nil {
			return Reindexed{}, err
		}
	}
	st, err := l.ix.Run(ctx)
	if err != nil {
		return Reindexed{}, err
	}
	if err := l.ix.BM25.Compact(ctx); err != nil {
		return Reindexed{}, err
	}
	r := Reindexed{Full: full, Notes: st.Notes, Chunks: st.Chunks, Changed: st.Changed, Removed: st.Removed,
		Skipped: files(st.Skipped), Warnings: files(st.Warnings)}
	if l.ix.Dense() {
		ds, err := l.ix.Embed(ctx)
		if err != nil {
			// Keywords are current; vectors catch up on the next pass.
			r.Note = "vectors are not up to date: " + err.Error()
		}
		r.Vectors = newVectors(ds.Embedder, ds.Embedded, ds.Passages)
	}
	if err := l.refresh(); err != nil {
		return Reindexed{}, err
	}
	r.TookMs = float64(time.Since(began).Microseconds()) / 1000
	return r, nil
}

// channel reads a channel name; empty is hybrid once vectors exist, else
// keywords, as the sidecar chooses.
func (l *Local) channel(name string) (search.Channel, error) {
	if name != "" {
		return search.ParseChannel(name)
	}
	return search.Default(l.ix.Vectors()), nil
}

// Search implements Backend.
func (l *Local) Search(ctx context.Context, query string, k int, channel string) (Found, error) {
	ch, err := l.channel(channel)
	if err != nil {
		return Found{}, err
	}
	s := l.searcher.Load()
	var warnings []string
	res, err := s.Query(ctx, query, k, ch)
	if errors.Is(err, search.ErrUnavailable) && ch != search.BM25 {
		warnings = append(warnings, fmt.Sprintf("%s search is not available (no embedder); showing keyword results", ch))
		res, err = s.Query(ctx, query, k, search.BM25)
	}
	if err != nil {
		return Found{}, err
	}
	if res.Warning != "" {
		warnings = append(warnings, res.Warning)
	}
	if res.Channel == "" {
		res.Channel = search.BM25
	}
	if res.Channel != search.BM25 {
		if ds := l.ix.DenseStats(); ds.Embedded < ds.Passages {
			warnings = append(warnings, fmt.Sprintf("vectors cover %d of %d passages", ds.Embedded, ds.Passages))
		}
	}
	f := Found{Channel: string(res.Channel), Warning: strings.Join(warnings, "; "), Passages: make([]Passage, len(res.Passages))}
	for i, p := range res.Passages {
		f.Passages[i] = Passage{Path: p.Path, Title: p.Title, HeadingPath: headings(p.Title, p.Crumbs),
			Text: p.Text, Score: p.Score, Start: p.Start, End: p.End}
	}
	return f, nil
}

// headings turns the breadcrumb "Title › H1 › H2" into its headings.
func headings(title, crumbs string) []string {
	if crumbs == "" {
		return []string{}
	}
	hs := strings.Split(crumbs, " › ")
	if hs[0] == title {
		hs = hs[1:]
	}
	return hs
}

// Note implements Backend. Only notes the catalog holds are read, so a
// path that passed checkPath still cannot reach a file that the index
// rules leave out.
func (l *Local) Note(ctx context.Context, p string) (string, error) {
	if _, ok := (*l.notes.Load())[p]; !ok {
		return "", fmt.Errorf("%w: %s", ErrNotIndexed, p)
	}
	full := filepath.Join(l.ix.Vault, filepath.FromSlash(p))
	st, err := os.Stat(full)
	if err != nil {
		return "", fmt.Errorf("%w: %s is gone from the vault", ErrNotIndexed, p)
	}
	if limit := l.cfg.MaxFileBytes; limit > 0 && st.Size() > limit {
		return "", fmt.Errorf("%s is %d bytes, over the %d-byte limit for notes", p, st.Size(), limit)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%s is not UTF-8 text", p)
	}
	return string(data), nil
}

// Ask implements Backend.
func (l *Local) Ask(ctx context.Context, question string, k int) (Answer, error) {
	s := l.searcher.Load()
	ch, err := l.channel("")
	if err != nil {
		return Answer{}, err
	}
	a := &ask.Asker{Search: s, Channel: ch, K: k, Model: l.model, Private: l.cfg.Private, Rewrite: l.cfg.Ask.Rewrite,
		Langs: s.Langs, Log: l.askLog}
	ans, err := a.Ask(ctx, ask.Query{Question: question}, nil)
	if err != nil {
		return Answer{}, err
	}
	return fromAskDone(server.AskDone(ans)), nil
}
