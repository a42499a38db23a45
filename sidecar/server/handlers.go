package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

// Request limits.
const (
	// maxQuery bounds search text: every word becomes clauses over every
	// language's fields, so a pasted chapter would be slow to rank.
	maxQuery = 4 << 10
	// relatedQuery is how much of a note (title, then body) related.query
	// searches with; the opening of a note says what it is about.
	relatedQuery = 1500
	// maxK bounds k; asking for more gets maxK.
	maxK = 100
	// relatedPool is how many passages related.query ranks per note it
	// returns, so that a few long notes cannot fill the result.
	relatedPool = 5
)

// handle answers one request: the reply's type and payload, or an error.
// A streaming request's parts go out through st before this returns.
func (s *Server) handle(ctx context.Context, env proto.Envelope, st Stream) (string, any, *proto.Error) {
	if s.hook != nil {
		s.hook(env.Type)
	}
	m, _ := proto.Lookup(env.Type)
	var payload any
	var err error
	if m.Stream {
		if f := s.stream(env.Type); f != nil {
			payload, err = f(ctx, env, st)
			if err != nil {
				return "", nil, s.toWire(env.Type, err)
			}
			return m.Reply, payload, nil
		}
	}
	switch env.Type {
	case proto.TypeStatusGet:
		payload, err = s.status()
	case proto.TypeSearchQuery:
		var q proto.SearchQuery
		if err = decode(env, &q); err == nil {
			payload, err = s.search(ctx, q)
		}
	case proto.TypeRelatedQuery:
		var q proto.RelatedQuery
		if err = decode(env, &q); err == nil {
			payload, err = s.related(ctx, q)
		}
	case proto.TypeNoteGet:
		var q proto.NoteGet
		if err = decode(env, &q); err == nil {
			payload, err = s.note(q)
		}
	case proto.TypeIndexRebuild:
		payload = proto.IndexResult{Started: s.rebuild()}
	case proto.TypeAnswerSave:
		var q proto.AnswerSave
		if err = decode(env, &q); err == nil {
			payload, err = s.saveAnswer(q)
		}
	case proto.TypeConfigGet:
		payload = s.configGet()
	case proto.TypeConfigSet:
		var q proto.ConfigSet
		if err = decode(env, &q); err == nil {
			payload, err = s.configSet(q)
		}
	case proto.TypeIngestAdd:
		var q proto.IngestAdd
		if err = decode(env, &q); err == nil {
			payload, err = s.ingestAdd(q)
		}
	case proto.TypeQueueList:
		payload, err = s.queueList()
	default:
		err = &proto.Error{Code: proto.CodeInvalidRequest, Message: env.Type + " is not answered by this sidecar"}
	}
	if err != nil {
		return "", nil, s.toWire(env.Type, err)
	}
	return m.Reply, payload, nil
}

// toWire turns an error into its wire form. Errors meant for the client
// are *proto.Error already; anything else is logged and sent as internal,
// except a cancelled request, which only happens at shutdown.
func (s *Server) toWire(typ string, err error) *proto.Error {
	var pe *proto.Error
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, context.Canceled) {
		return &proto.Error{Code: proto.CodeNotReady, Message: "sidecar is shutting down"}
	}
	s.log.Error("request failed", "type", typ, "err", err)
	return &proto.Error{Code: proto.CodeInternal, Message: typ + ": " + err.Error()}
}

func decode(env proto.Envelope, v any) error {
	if err := env.Decode(v); err != nil {
		return &proto.Error{Code: proto.CodeInvalidRequest, Message: err.Error()}
	}
	return nil
}

func invalid(format string, a ...any) *proto.Error {
	return &proto.Error{Code: proto.CodeInvalidRequest, Message: fmt.Sprintf(format, a...)}
}

func (s *Server) status() (proto.StatusResult, error) {
	snap := s.snap.Load()
	sum := index.Summarize(snap.entries)
	res := proto.StatusResult{
		Version:     s.opts.Version,
		Notes:       len(snap.entries),
		Chunks:      sum.Chunks,
		Languages:   sum.Languages,
		Indexing:    s.indexing.Load(),
		LastIndexed: snap.meta.LastIndex,
		Coverage:    proto.Coverage{VectorsDone: snap.dense.Embedded, VectorsTotal: snap.dense.Passages},
		Fingerprint: proto.Fingerprint{Chunking: s.ix.Fingerprint(), Embedder: snap.dense.Embedder},
	}
	for _, w := range sum.Warnings {
		res.Warnings = append(res.Warnings, proto.SkippedFile{Path: w.Path, Reason: w.Reason})
	}
	for _, sk := range snap.meta.Skipped {
		res.Skipped = append(res.Skipped, proto.SkippedFile{Path: sk.Path, Reason: sk.Reason})
	}
	return res, nil
}

func (s *Server) k(k int) (int, error) {
	switch {
	case k < 0:
		return 0, invalid("k must not be negative")
	case k == 0:
		return s.config().Search.K, nil
	case k > maxK:
		return maxK, nil
	}
	return k, nil
}

// channel reads a requested channel. Empty means the best one the index
// serves: hybrid with an embedder, else keywords, without a warning, since
// a vault set up without an embedder is not a fault.
func (s *Server) channel(c proto.Channel) (search.Channel, error) {
	if c == "" {
		if s.ix.Dense() {
			return search.Hybrid, nil
		}
		return search.BM25, nil
	}
	ch, err := search.ParseChannel(string(c))
	if err != nil {
		return "", invalid("%v", err)
	}
	return ch, nil
}

func (s *Server) search(ctx context.Context, q proto.SearchQuery) (proto.SearchResult, error) {
	if len(q.Query) > maxQuery {
		return proto.SearchResult{}, &proto.Error{Code: proto.CodeTooLarge, Message: fmt.Sprintf("query over %d bytes", maxQuery)}
	}
	k, err := s.k(q.K)
	if err != nil {
		return proto.SearchResult{}, err
	}
	ch, err := s.channel(q.Channel)
	if err != nil {
		return proto.SearchResult{}, err
	}
	ps, used, warning, err := s.rank(ctx, q.Query, k, ch)
	if err != nil {
		return proto.SearchResult{}, err
	}
	res := proto.SearchResult{Channel: proto.Channel(used), Warning: warning, Passages: make([]proto.Passage, len(ps))}
	for i, p := range ps {
		res.Passages[i] = toPassage(p)
	}
	return res, nil
}

// rank searches the channel asked for and falls back to keywords, with a
// warning, when that channel cannot serve (no vectors yet).
func (s *Server) rank(ctx context.Context, query string, k int, ch search.Channel) ([]search.Passage, search.Channel, string, error) {
	snap := s.snap.Load()
	var warnings []string
	if !snap.passed && s.indexing.Load() {
		warnings = append(warnings, "indexing in progress: results may be incomplete")
	}
	if ch != search.BM25 && snap.dense.Passages > 0 && snap.dense.Embedded < snap.dense.Passages {
		warnings = append(warnings, fmt.Sprintf("vectors cover %d of %d passages", snap.dense.Embedded, snap.dense.Passages))
	}
	res, err := snap.searcher.Query(ctx, query, k, ch)
	if errors.Is(err, search.ErrUnavailable) && ch != search.BM25 {
		warnings = append(warnings, fmt.Sprintf("%s search is not available (no embedder); showing keyword results", ch))
		res, err = snap.searcher.Query(ctx, query, k, search.BM25)
	}
	if err != nil {
		return nil, "", "", err
	}
	if res.Warning != "" {
		warnings = append(warnings, res.Warning)
	}
	if res.Channel == "" {
		res.Channel = search.BM25
	}
	return res.Passages, res.Channel, strings.Join(warnings, "; "), nil
}

// toPassage maps a ranked passage to the wire. The breadcrumb is
// "Title › H1 › H2": its parts after the title are the heading path.
func toPassage(p search.Passage) proto.Passage {
	var headings []string
	if p.Crumbs != "" {
		headings = strings.Split(p.Crumbs, " › ")
		if len(headings) > 0 && headings[0] == p.Title {
			headings = headings[1:]
		}
	}
	return proto.Passage{ID: p.ID, Path: p.Path, Title: p.Title, HeadingPath: headings,
		Start: p.Start, End: p.End, Text: p.Text, Score: p.Score}
}

func (s *Server) related(ctx context.Context, q proto.RelatedQuery) (proto.RelatedResult, error) {
	if (q.Path == "") == (q.Text == "") {
		return proto.RelatedResult{}, invalid("related.query needs exactly one of path and text")
	}
	k, err := s.k(q.K)
	if err != nil {
		return proto.RelatedResult{}, err
	}
	text := q.Text
	if q.Path != "" {
		if err := s.indexed(q.Path); err != nil {
			return proto.RelatedResult{}, err
		}
		n, err := vault.Read(s.ix.Vault, q.Path, s.config().MaxFileBytes)
		if err != nil {
			return proto.RelatedResult{}, &proto.Error{Code: proto.CodeNotFound, Message: err.Error()}
		}
		text = n.Title + "\n" + string(n.Body())
	}
	ch, _ := s.channel("")
	ps, _, warning, err := s.rank(ctx, clip(text, relatedQuery), k*relatedPool, ch)
	if err != nil {
		return proto.RelatedResult{}, err
	}
	res := proto.RelatedResult{Warning: warning, Notes: []proto.RelatedNote{}}
	seen := map[string]bool{q.Path: true}
	for _, p := range ps {
		if seen[p.Path] {
			continue // not the note itself; one passage, its best, per note
		}
		seen[p.Path] = true
		res.Notes = append(res.Notes, proto.RelatedNote{Path: p.Path, Title: p.Title, Score: p.Score, Passage: toPassage(p)})
		if len(res.Notes) == k {
			break
		}
	}
	return res, nil
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

func (s *Server) note(q proto.NoteGet) (proto.NoteResult, error) {
	if err := s.indexed(q.Path); err != nil {
		return proto.NoteResult{}, err
	}
	full := filepath.Join(s.ix.Vault, filepath.FromSlash(q.Path))
	st, err := os.Stat(full)
	if err != nil {
		return proto.NoteResult{}, &proto.Error{Code: proto.CodeNotFound, Message: "note is gone: " + q.Path}
	}
	if st.Size() > s.config().MaxFileBytes || st.Size() > int64(maxNote) {
		return proto.NoteResult{}, &proto.Error{Code: proto.CodeTooLarge, Message: "note too large to send: " + q.Path}
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return proto.NoteResult{}, &proto.Error{Code: proto.CodeNotFound, Message: "note is unreadable: " + q.Path}
	}
	if !utf8.Valid(data) {
		return proto.NoteResult{}, &proto.Error{Code: proto.CodeInvalidRequest, Message: "note is not UTF-8: " + q.Path}
	}
	return proto.NoteResult{Path: q.Path, Text: string(data)}, nil
}

// maxNote bounds note.get replies: well under the client's frame limits.
const maxNote = 16 << 20

// indexed checks that p is a clean vault-relative note path that the
// catalog holds. The shape is checked first so that the error says why a
// path like ../secret.md is refused, even though the catalog check alone
// would refuse it too.
func (s *Server) indexed(p string) error {
	if err := notePath(p); err != nil {
		return err
	}
	if _, ok := s.snap.Load().entries[p]; !ok {
		return &proto.Error{Code: proto.CodeNotFound, Message: "note not indexed: " + p}
	}
	return nil
}

// notePath refuses paths that are not vault-relative note paths: empty,
// absolute, with backslashes, "." or ".." parts, or dot folders.
func notePath(p string) error {
	switch {
	case p == "":
		return invalid("path is empty")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return invalid("path must be vault-relative: %s", p)
	case strings.ContainsAny(p, "\\\x00"):
		return invalid("path must use forward slashes: %s", p)
	case path.Clean(p) != p:
		return invalid("path is not clean: %s", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || strings.HasPrefix(part, ".") {
			return invalid("path must not contain .. or dot folders: %s", p)
		}
	}
	return nil
}
