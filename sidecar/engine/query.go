package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

// Request limits.
const (
	// MaxQuery bounds search text: every word becomes clauses over every
	// language's fields, so a pasted chapter would be slow to rank.
	MaxQuery = 4 << 10
	// relatedQuery is how much of a note (title, then body) Related
	// searches with; the opening of a note says what it is about.
	relatedQuery = 1500
	// MaxK bounds k; asking for more gets MaxK.
	MaxK = 100
	// relatedPool is how many passages Related ranks per note it returns,
	// so that a few long notes cannot fill the result.
	relatedPool = 5
	// relatedMore is how many other passages a related note carries for
	// its expanded row: enough to see why it matched, not a second list.
	relatedMore = 3
	// MaxNote bounds Note: well under any front end's frame limits.
	MaxNote = 16 << 20
)

// Status is the index as the engine holds it now.
type Status struct {
	Vault       string
	Notes       int
	Chunks      int
	Languages   map[string]int
	Indexing    bool
	LastIndexed time.Time // zero before the first pass
	// Fingerprint names the chunking parameters the index was built with.
	Fingerprint string
	// Vectors is the coverage of search by meaning; Embedder is empty
	// when no embedder is enabled.
	Vectors index.DenseStats
	// Embedding is how far the embedding running now has come, with its
	// rate and the time left; nil when none runs.
	Embedding *Progress
	Skipped   []vault.Skip // files left out, with why
	Warnings  []vault.Skip // notes indexed despite a problem
}

// Status describes the index as of the last pass.
func (e *Engine) Status(context.Context) (Status, error) {
	snap := e.snap.Load()
	sum, err := e.ix.Summary(snap.notes.all)
	if err != nil {
		return Status{}, err
	}
	st := Status{Vault: e.vault, Notes: sum.Notes, Chunks: sum.Chunks, Languages: sum.Languages,
		Indexing: e.indexing.Load(), LastIndexed: snap.meta.LastIndex, Fingerprint: e.ix.Fingerprint(),
		Vectors: snap.dense, Skipped: snap.meta.Skipped, Warnings: sum.Warnings}
	if p := e.embedding.Load(); p != nil {
		st.Embedding = p
		if p.Total == st.Vectors.Passages && p.Done > st.Vectors.Embedded {
			// The snapshot counts the vectors of the last finished run.
			st.Vectors.Embedded, st.Vectors.Vectors = p.Done, p.Done
		}
	}
	if st.Languages == nil {
		st.Languages = map[string]int{}
	}
	if st.Skipped == nil {
		st.Skipped = []vault.Skip{}
	}
	if err := e.folderProblem(); err != nil {
		st.Warnings = append(st.Warnings, vault.Skip{Path: e.Config().Folder, Reason: err.Error()})
	}
	if n := snap.dense.Withheld; n > 0 {
		// Why coverage stays below 100%, said where status shows problems.
		st.Warnings = append(st.Warnings, vault.Skip{Path: strings.Join(e.Config().Private, ", "),
			Reason: fmt.Sprintf("private: %d passages are not sent to the embedder, which is not on this machine, so search by meaning skips them (keywords find them)", n)})
	}
	if len(e.Config().Private) > 0 && (snap.passed || !e.indexing.Load()) {
		entries, err := snap.notes.all()
		if err != nil {
			return Status{}, err
		}
		paths := make([]string, 0, len(entries))
		for p := range entries {
			paths = append(paths, p)
		}
		for _, u := range snap.private.Unmatched(paths) {
			// A typo there protects nothing, silently.
			st.Warnings = append(st.Warnings, vault.Skip{Path: u, Reason: "private: matches no note in the vault"})
		}
	}
	if st.Warnings == nil {
		st.Warnings = []vault.Skip{}
	}
	return st, nil
}

// Query is a search.
type Query struct {
	Text string
	// K is how many passages: 0 is the configured default, more than
	// MaxK gets MaxK.
	K int
	// Channel is "" for the best the index serves: hybrid once vectors
	// exist, else keywords.
	Channel search.Channel
	// Strict makes a channel that cannot serve an error instead of a
	// fall back to keywords: a command asked for it by name.
	Strict bool
	// Filter narrows the search to a folder and a tag; the zero value
	// searches every note.
	Filter search.Filter
	// MCP says the result goes to an MCP client, whose model may not be
	// on this machine: private notes are left out (withholds).
	MCP bool
	// Typing says the query is still being typed in a search box: its
	// last word also finds the words it begins.
	Typing bool
}

// withholds reports whether a result for an MCP client (mcp) leaves
// private notes out: unless config mcp.private is include.
func (e *Engine) withholds(mcp bool) bool {
	return mcp && e.Config().MCP.Private != "include"
}

// k reads a requested k.
func (e *Engine) k(k int) (int, error) {
	switch {
	case k < 0:
		return 0, errorf(Invalid, "k must not be negative")
	case k == 0:
		return e.Config().Search.K, nil
	case k > MaxK:
		return MaxK, nil
	}
	return k, nil
}

// channel reads a requested channel. Empty means the best one the index
// serves, without a warning, since a vault set up without an embedder is
// not a fault.
func (e *Engine) channel(c search.Channel) (search.Channel, error) {
	if c == "" {
		return search.Default(e.snap.Load().dense.Embedded), nil
	}
	ch, err := search.ParseChannel(string(c))
	if err != nil {
		return "", errorf(Invalid, "%v", err)
	}
	return ch, nil
}

// Search ranks passages for q. A channel that cannot serve (no vectors
// yet) falls back to keywords with a warning in the result.
func (e *Engine) Search(ctx context.Context, q Query) (search.Result, error) {
	if len(q.Text) > MaxQuery {
		return search.Result{}, errorf(TooLarge, "query over %d bytes", MaxQuery)
	}
	k, err := e.k(q.K)
	if err != nil {
		return search.Result{}, err
	}
	ch, err := e.channel(q.Channel)
	if err != nil {
		return search.Result{}, err
	}
	wait := onQueryWait
	if q.Typing {
		wait = 0 // a search box's keystrokes do not wait for a fetch
	}
	e.fetchOnQuery(ctx, wait)
	snap := e.snap.Load()
	if !e.withholds(q.MCP) || snap.private.Empty() {
		return e.rank(ctx, q.Text, k, ch, q.Strict, q.Filter, q.Typing)
	}
	// Private notes leave before the cut to k: ranked from the most the
	// engine serves.
	res, err := e.rank(ctx, q.Text, MaxK, ch, q.Strict, q.Filter, q.Typing)
	if err != nil {
		return search.Result{}, err
	}
	kept := res.Passages[:0]
	for _, p := range res.Passages {
		if !snap.private.Holds(p.Path) {
			kept = append(kept, p)
		}
	}
	if n := len(res.Passages) - len(kept); n > 0 {
		res.Warning = strings.TrimPrefix(res.Warning+"; "+fmt.Sprintf("%d passage(s) of private notes withheld (config mcp.private)", n), "; ")
	}
	res.Passages = kept[:min(k, len(kept))]
	return res, nil
}

// rank searches the channel asked for, which gives way to keywords when
// the embedder cannot serve unless strict (search.Searcher.Do decides,
// and says so in the warning); typing: the query's last word is being
// typed (Query.Typing).
func (e *Engine) rank(ctx context.Context, query string, k int, ch search.Channel, strict bool, f search.Filter, typing bool) (search.Result, error) {
	snap := e.snap.Load()
	var warnings []string
	if !snap.passed && e.indexing.Load() {
		warnings = append(warnings, "indexing in progress: results may be incomplete")
	}
	if ch != search.BM25 && snap.dense.Passages > 0 && snap.dense.Embedded < snap.dense.Passages {
		warnings = append(warnings, fmt.Sprintf("vectors cover %d of %d passages", snap.dense.Embedded, snap.dense.Passages))
	}
	res, err := snap.searcher.Do(ctx, search.Request{Text: query, K: k, Channel: ch, Filter: f, Typing: typing, Strict: strict})
	if err != nil {
		return search.Result{}, err
	}
	if res.Warning != "" {
		warnings = append(warnings, res.Warning)
	}
	e.answersAfterSources(&res)
	e.nameByMatch(&res)
	res.Warning = strings.Join(warnings, "; ")
	return res, nil
}

// Related asks for the notes closest to a note (by path) or to a text.
type Related struct {
	Path, Text string
	// From is the note Text was typed in, if any: a private note's text
	// is searched by local channels only.
	From string
	K    int
	// Exclude lists folders whose notes are left out, before the cut to
	// K (search.Filter.Exclude); ExcludeNotes, notes by path.
	Exclude, ExcludeNotes []string
	// Local says Text is private (a private source being ingested): it
	// is searched by channels that keep it on this machine.
	Local bool
	// Unfloored keeps the notes below the vault's dense floor, with
	// their cosine: internal/relatedfloor measures the floor with it.
	Unfloored bool
}

// Related returns up to K notes closest to r's note or text, one passage
// (its best) per note, never the note itself, and a warning when the
// result may be partial.
func (e *Engine) Related(ctx context.Context, r Related) ([]RelatedNote, string, error) {
	if (r.Path == "") == (r.Text == "") {
		return nil, "", errorf(Invalid, "related.query needs exactly one of path and text")
	}
	k, err := e.k(r.K)
	if err != nil {
		return nil, "", err
	}
	text := r.Text
	if r.Path != "" {
		if err := e.indexed(r.Path); err != nil {
			return nil, "", err
		}
		n, err := vault.Read(e.ix.Vault, r.Path, e.Config().MaxFileBytes)
		if err != nil {
			return nil, "", errorf(NotFound, "%s", err.Error())
		}
		text = n.Title + "\n" + string(n.Body())
	}
	ch, _ := e.channel("")
	var local string
	snap := e.snap.Load()
	if r.Local || snap.private.Holds(r.Path) || r.From != "" && snap.private.Holds(r.From) {
		ch, local = e.localChannel(ch)
	}
	res, err := e.rank(ctx, clip(text, relatedQuery), k*relatedPool, ch, false, search.Filter{Exclude: r.Exclude, ExcludeNotes: r.ExcludeNotes}, false)
	if err != nil {
		return nil, "", err
	}
	if local != "" {
		res.Warning = strings.TrimPrefix(res.Warning+"; "+local, "; ")
	}
	// How close each note comes by meaning, and the vault's floor: a
	// note below it is no connection (search.NoteCosines). Only where
	// the search itself embedded the text (a private note's goes to no
	// remote embedder).
	var cos map[string]float64
	floor := 0.0
	if res.Channel != search.BM25 {
		if cos, floor, err = snap.searcher.NoteCosines(ctx, clip(text, relatedQuery)); err != nil {
			return nil, "", err
		}
	}
	out := []RelatedNote{}
	at := map[string]int{}
	for _, p := range res.Passages {
		if p.Path == r.Path {
			continue // not the note itself
		}
		if !r.Unfloored && snap.searcher.Far(cos, floor, p.Path) {
			continue // no closer than chance: no connection is better than a wrong one
		}
		if i, ok := at[p.Path]; ok {
			if len(out[i].More) < relatedMore {
				out[i].More = append(out[i].More, p)
			}
			continue
		}
		if len(out) == k {
			continue // the notes are chosen; later passages may still add to them
		}
		at[p.Path] = len(out)
		c := -1.0
		if cos != nil {
			c = cos[p.Path]
		}
		out = append(out, RelatedNote{Passage: p, Cosine: c})
	}
	return out, res.Warning, nil
}

// localChannel is the channel a query made from private text may use in
// place of ch: ch itself unless it embeds the query with an embedder off
// this machine, then keywords, with the warning that says so.
func (e *Engine) localChannel(ch search.Channel) (search.Channel, string) {
	if ch == search.BM25 || !e.ix.RemoteDense() {
		return ch, ""
	}
	return search.BM25, "the note is private and the embedder is not on this machine: keyword results only"
}

// RelatedNote is a note close to the query: its best passage, and its
// other passages among those ranked, best first, for a reader who expands
// the note's row.
type RelatedNote struct {
	search.Passage
	More []search.Passage
	// Cosine is the note's best cosine to the query text (at least the
	// vault's dense floor), -1 when the dense channel did not serve.
	Cosine float64
}

// clip cuts s to at most n bytes at a word boundary, never inside a rune.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexAny(s[:cut], " \n\t"); sp > n/2 {
		cut = sp
	}
	return s[:cut]
}

// Note returns the text of an indexed note by its clean vault-relative
// path. Only notes the catalog holds are read, so no path reaches a file
// that the index rules leave out. For an MCP client (mcp) a private note
// is refused, with a message saying so, unless config mcp.private is
// include.
func (e *Engine) Note(_ context.Context, p string, mcp bool) (string, error) {
	if err := e.indexed(p); err != nil {
		return "", err
	}
	if e.withholds(mcp) && e.snap.Load().private.Holds(p) {
		return "", errorf(Invalid, "%s is in a private folder or marked private: Quire gives MCP clients no private note (config mcp.private: include lets them through, for a client whose model runs on this machine)", p)
	}
	// No link followed, regular files only, never blocking: the file may
	// have been swapped since the scan (vault.ReadFile).
	data, err := e.readNote(p, min(e.Config().MaxFileBytes, int64(MaxNote)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", errorf(NotFound, "note is gone: %s", p)
	case errors.Is(err, vault.ErrTooLarge):
		return "", errorf(TooLarge, "note too large to send: %s", p)
	case errors.Is(err, vault.ErrNotRegular):
		return "", errorf(NotFound, "note is no longer a regular file: %s", p)
	case err != nil:
		return "", errorf(NotFound, "note is unreadable: %s", p)
	}
	if !utf8.Valid(data) {
		return "", errorf(Invalid, "note is not UTF-8: %s", p)
	}
	return string(data), nil
}

// indexed checks that p is a clean vault-relative note path that the
// catalog holds. The shape is checked first so that the error says why a
// path like ../secret.md is refused, even though the catalog check alone
// would refuse it too.
func (e *Engine) indexed(p string) error {
	if err := notePath(p); err != nil {
		return err
	}
	if _, ok := e.snap.Load().notes.entry(p); !ok {
		return errorf(NotFound, "note not indexed: %s", p)
	}
	return nil
}

// notePath refuses paths that are not vault-relative note paths: empty,
// absolute, with backslashes, "." or ".." parts, or dot folders.
func notePath(p string) error {
	switch {
	case p == "":
		return errorf(Invalid, "path is empty")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return errorf(Invalid, "path must be vault-relative: %s", p)
	case strings.ContainsAny(p, "\\\x00"):
		return errorf(Invalid, "path must use forward slashes: %s", p)
	case path.Clean(p) != p:
		return errorf(Invalid, "path is not clean: %s", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || strings.HasPrefix(part, ".") {
			return errorf(Invalid, "path must not contain .. or dot folders: %s", p)
		}
	}
	return nil
}
