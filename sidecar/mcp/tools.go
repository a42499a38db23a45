package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/source"
)

// Argument limits.
const (
	// maxK bounds k: more passages than this flood the client's context
	// and the sidecar caps its searches at 100 anyway.
	maxK = 50
	// defaultK is k when the client leaves it out.
	defaultK = 8
	// defaultSources is how many notes search_sources lists by default.
	defaultSources = 10
	// maxText bounds a query or question, in bytes.
	maxText = 4 << 10
	// pool is how many passages search_sources ranks before grouping
	// them by note: the most the sidecar serves.
	pool = 100
	// snippets is how many passages search_sources quotes per note.
	snippets = 3
	// snippetBytes bounds each quoted snippet.
	snippetBytes = 280
	// maxNoteBytes bounds get_note's text; longer notes are cut, and say so.
	maxNoteBytes = 256 << 10
)

type tools struct{ b Backend }

// Inputs. A field without omitempty is required by the schema.
type (
	statusIn  struct{}
	reindexIn struct {
		Full bool `json:"full,omitempty" jsonschema:"re-read every note instead of only the changed ones (slower); default false"`
	}
	searchIn struct {
		Query  string `json:"query" jsonschema:"what to look for, in the user's words or as keywords"`
		K      int    `json:"k,omitempty" jsonschema:"how many passages to return, 1 to 50; default 8"`
		Folder string `json:"folder,omitempty" jsonschema:"only notes under this vault-relative folder, e.g. Projects/2024"`
		Tag    string `json:"tag,omitempty" jsonschema:"only notes with this tag (frontmatter or inline; nested tags count), e.g. recipe or #recipe"`
	}
	sourcesIn struct {
		Query  string `json:"query" jsonschema:"the concept, name or phrase to look for"`
		K      int    `json:"k,omitempty" jsonschema:"how many notes to list, 1 to 50; default 10"`
		Folder string `json:"folder,omitempty" jsonschema:"only notes under this vault-relative folder"`
		Tag    string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
	}
	noteIn struct {
		Path   string `json:"path" jsonschema:"the note's path inside its source as search results give it, e.g. Kitchen/Sourdough.md"`
		Source string `json:"source,omitempty" jsonschema:"the source the note is in, as search results give it; vault (the default) for the vault"`
	}
	askIn struct {
		Question string `json:"question" jsonschema:"the question, in any language; the answer comes in the same language"`
		K        int    `json:"k,omitempty" jsonschema:"passages to retrieve before answering, 1 to 50; default 20"`
		Folder   string `json:"folder,omitempty" jsonschema:"answer only from notes under this vault-relative folder, e.g. Projects/2024"`
		Tag      string `json:"tag,omitempty" jsonschema:"answer only from notes with this tag (frontmatter or inline; nested tags count), e.g. recipe or #recipe"`
	}
)

// Outputs that are not a backend's result as it is.
type (
	// SearchResult is what search_knowledge returns.
	SearchResult struct {
		Query    string    `json:"query"`
		Channel  string    `json:"channel" jsonschema:"the ranking used: bm25 (keywords), dense (meaning) or hybrid"`
		Warning  string    `json:"warning,omitempty" jsonschema:"why results may be partial (index still building, embedder down, filter left few passages)"`
		Passages []Passage `json:"passages" jsonschema:"best first; empty when nothing matched"`
	}
	// Sources is what search_sources returns.
	Sources struct {
		Query   string   `json:"query"`
		Warning string   `json:"warning,omitempty"`
		Notes   []Source `json:"notes" jsonschema:"notes the concept appears in, best match first"`
	}
	// Source is one note a concept appears in.
	Source struct {
		Path      string    `json:"path" jsonschema:"the note's vault-relative path"`
		Title     string    `json:"title"`
		Hits      int       `json:"hits" jsonschema:"passages of this note among the matches"`
		BestScore float64   `json:"bestScore" jsonschema:"score of its best passage, comparable within this result only"`
		Snippets  []Snippet `json:"snippets" jsonschema:"its best passages, shortened"`
	}
	// Snippet is a shortened passage.
	Snippet struct {
		Headings []string `json:"headingPath"`
		Text     string   `json:"text"`
	}
	// NoteText is what get_note returns.
	NoteText struct {
		Path      string `json:"path"`
		Text      string `json:"text" jsonschema:"the note's Markdown, frontmatter included"`
		Bytes     int    `json:"bytes" jsonschema:"the note's size in bytes"`
		Truncated bool   `json:"truncated" jsonschema:"true when text is only the note's beginning (notes over 256 KiB)"`
	}
)

func readOnly(title string) *sdk.ToolAnnotations {
	no := false
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
}

func addTools(s *sdk.Server, t *tools) {
	no := false
	sdk.AddTool(s, &sdk.Tool{Name: "status", Annotations: readOnly("Index status"),
		Description: "State of the vault's search index: notes, passages, how many passages are searchable by meaning, " +
			"when it was last indexed, the index fingerprint, and the files left out with why. Call it when results look stale or empty."},
		t.status)
	sdk.AddTool(s, &sdk.Tool{Name: "reindex",
		Annotations: &sdk.ToolAnnotations{Title: "Update the index", IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
		Description: "Bring the search index up to date with the vault: only changed notes by default; full: true re-reads every note. " +
			"Returns the counts and the files skipped. Notes are never modified."},
		t.reindex)
	sdk.AddTool(s, &sdk.Tool{Name: "search_knowledge", Annotations: readOnly("Search the vault"),
		Description: "Search the user's notes for passages relevant to a query (keywords and meaning). Returns passages best first, " +
			"each with its note path, heading path, Markdown text and score. Optionally only notes under a folder or with a tag. " +
			"Use get_note with a passage's path to read the whole note."},
		t.search)
	sdk.AddTool(s, &sdk.Tool{Name: "search_sources", Annotations: readOnly("Notes that mention a concept"),
		Description: "Which notes a concept, name or phrase appears in: one entry per note with the number of matching passages, " +
			"its best score and short snippets. Use it to survey where a topic is discussed before reading notes."},
		t.sources)
	sdk.AddTool(s, &sdk.Tool{Name: "get_note", Annotations: readOnly("Read a note"),
		Description: "The full Markdown text of one indexed note, by its vault-relative path as search results give it " +
			"(e.g. Kitchen/Sourdough.md). Paths outside the vault, absolute paths, '..' and dot folders are refused."},
		t.note)
	sdk.AddTool(s, &sdk.Tool{Name: "ask", Annotations: readOnly("Ask the vault"),
		Description: "Answer a question from the user's notes only, with numbered citations that were checked against the passages " +
			"retrieved. When the notes do not hold the answer it refuses (refused: true) instead of guessing. Without a configured " +
			"model it returns the most relevant sentences quoted from the notes (extracted: true). Optionally only from notes under a " +
			"folder or with a tag."},
		t.ask)
	addGrep(s, t)
	addTOC(s, t)
}

// argError is a bad argument: the client's model should fix the call.
func argError(format string, a ...any) error { return fmt.Errorf(format, a...) }

func checkText(name, s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", argError("%s is empty: say what to look for", name)
	case len(s) > maxText:
		return "", argError("%s is %d bytes; keep it under %d", name, len(s), maxText)
	case !utf8.ValidString(s):
		return "", argError("%s is not valid UTF-8", name)
	}
	return s, nil
}

func checkK(k, def int) (int, error) {
	switch {
	case k == 0:
		return def, nil
	case k < 0 || k > maxK:
		return 0, argError("k is %d; it must be between 1 and %d", k, maxK)
	}
	return k, nil
}

func (t *tools) status(ctx context.Context, _ *sdk.CallToolRequest, _ statusIn) (*sdk.CallToolResult, Status, error) {
	st, err := t.b.Status(ctx)
	if err != nil {
		return nil, Status{}, fmt.Errorf("status: %w", err)
	}
	return nil, toStatus(st, via(t.b)), nil
}

// reindex sends progress notifications when the call asks for them: a
// full pass over a large vault takes long enough for a client to give up.
func (t *tools) reindex(ctx context.Context, req *sdk.CallToolRequest, in reindexIn) (*sdk.CallToolResult, Reindexed, error) {
	var progress func(engine.Progress)
	if n := newNotifier(ctx, req); n != nil {
		progress = n.progress
	}
	r, err := t.b.Reindex(ctx, in.Full, progress)
	if err != nil {
		return nil, Reindexed{}, fmt.Errorf("reindex: %w", err)
	}
	return nil, toReindexed(r), nil
}

// find searches the backend and maps the passages.
func (t *tools) find(ctx context.Context, q string, k int, ch search.Channel, f filter) ([]Passage, search.Result, error) {
	res, err := t.b.Search(ctx, engine.Query{Text: q, K: k, Channel: ch, Filter: f.engine(), MCP: true})
	if err != nil {
		return nil, res, err
	}
	ps := make([]Passage, len(res.Passages))
	for i, p := range res.Passages {
		ps[i] = toPassage(p)
	}
	return ps, res, nil
}

func (t *tools) search(ctx context.Context, _ *sdk.CallToolRequest, in searchIn) (*sdk.CallToolResult, SearchResult, error) {
	q, err := checkText("query", in.Query)
	if err != nil {
		return nil, SearchResult{}, err
	}
	k, err := checkK(in.K, defaultK)
	if err != nil {
		return nil, SearchResult{}, err
	}
	f, err := newFilter(in.Folder, in.Tag)
	if err != nil {
		return nil, SearchResult{}, err
	}
	// The engine filters before it cuts to k.
	ps, found, err := t.find(ctx, q, k, "", f)
	if err != nil {
		return nil, SearchResult{}, fmt.Errorf("search: %w", err)
	}
	return nil, SearchResult{Query: q, Channel: string(found.Channel), Warning: found.Warning, Passages: ps}, nil
}

func (t *tools) sources(ctx context.Context, _ *sdk.CallToolRequest, in sourcesIn) (*sdk.CallToolResult, Sources, error) {
	q, err := checkText("query", in.Query)
	if err != nil {
		return nil, Sources{}, err
	}
	k, err := checkK(in.K, defaultSources)
	if err != nil {
		return nil, Sources{}, err
	}
	f, err := newFilter(in.Folder, in.Tag)
	if err != nil {
		return nil, Sources{}, err
	}
	// Keywords: a note counts as mentioning the concept when its words
	// (stemmed, accents folded, translated) occur there, which is what
	// "appears in" means; meaning alone would list loosely related notes.
	ps, found, err := t.find(ctx, q, pool, search.BM25, f)
	if err != nil {
		return nil, Sources{}, fmt.Errorf("search_sources: %w", err)
	}
	return nil, Sources{Query: q, Warning: found.Warning, Notes: group(ps, q, k)}, nil
}

// group gathers passages by note, best note first, keeping at most k notes
// and a few snippets each.
func group(ps []Passage, query string, k int) []Source {
	by := map[string]*Source{}
	var order []*Source
	for _, p := range ps {
		s := by[p.Path]
		if s == nil {
			s = &Source{Path: p.Path, Title: p.Title, BestScore: p.Score, Snippets: []Snippet{}}
			by[p.Path] = s
			order = append(order, s)
		}
		s.Hits++
		if len(s.Snippets) < snippets {
			s.Snippets = append(s.Snippets, Snippet{Headings: nonNil(p.Headings), Text: snippet(p.Text, query, snippetBytes)})
		}
	}
	// Passages arrive best first, so order is by best score already; a
	// stable sort keeps it when scores tie and puts more hits first.
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].BestScore != order[j].BestScore {
			return order[i].BestScore > order[j].BestScore
		}
		return order[i].Hits > order[j].Hits
	})
	if len(order) > k {
		order = order[:k]
	}
	out := make([]Source, len(order))
	for i, s := range order {
		out[i] = *s
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (t *tools) note(ctx context.Context, _ *sdk.CallToolRequest, in noteIn) (*sdk.CallToolResult, NoteText, error) {
	p, err := checkPath(in.Path)
	if err != nil {
		return nil, NoteText{}, err
	}
	if in.Source != "" && in.Source != source.Vault {
		if err := source.CheckID(in.Source); err != nil {
			return nil, NoteText{}, argError("source: %v", err)
		}
		p = source.Key(in.Source, p)
	}
	text, err := t.b.Note(ctx, p, true)
	if notIndexed(err) {
		return nil, NoteText{}, fmt.Errorf("%s is not a note in the index; use a path that search_knowledge returned", p)
	}
	if err != nil {
		return nil, NoteText{}, fmt.Errorf("get_note %s: %w", p, err)
	}
	out := NoteText{Path: p, Text: text, Bytes: len(text)}
	if len(text) > maxNoteBytes {
		cut := maxNoteBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		out.Text, out.Truncated = text[:cut], true
	}
	return nil, out, nil
}

// ask sends a progress notification as the answer starts streaming, when
// the call asks for them.
func (t *tools) ask(ctx context.Context, req *sdk.CallToolRequest, in askIn) (*sdk.CallToolResult, Answer, error) {
	q, err := checkText("question", in.Question)
	if err != nil {
		return nil, Answer{}, err
	}
	k, err := checkK(in.K, 0)
	if err != nil {
		return nil, Answer{}, err
	}
	f, err := newFilter(in.Folder, in.Tag)
	if err != nil {
		return nil, Answer{}, err
	}
	var onDelta func(string)
	if n := newNotifier(ctx, req); n != nil {
		n.say("retrieving passages")
		var once sync.Once
		onDelta = func(string) { once.Do(func() { n.say("the model is answering") }) }
	}
	a, err := t.b.Ask(ctx, engine.Question{Text: q, K: k, Scope: f.engine(), MCP: true}, onDelta)
	if err != nil {
		return nil, Answer{}, fmt.Errorf("ask: %w", err)
	}
	ans := toAnswer(a)
	if ans.Citations == nil {
		ans.Citations = []Citation{}
	}
	if ans.Quotes == nil {
		ans.Quotes = []Quote{}
	}
	return nil, ans, nil
}
