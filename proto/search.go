package proto

// Search and related-pages message types.
const (
	TypeSearchQuery   = "search.query"
	TypeSearchResult  = "search.result"
	TypeRelatedQuery  = "related.query"
	TypeRelatedResult = "related.result"
)

// Channel selects how a search ranks passages.
type Channel string

// Channels. The empty channel means the best the sidecar serves:
// [ChannelHybrid] when an embedder is configured, else [ChannelBM25].
const (
	// ChannelBM25 ranks by keywords only.
	ChannelBM25 Channel = "bm25"
	// ChannelDense ranks by embedding similarity only.
	ChannelDense Channel = "dense"
	// ChannelHybrid fuses both rankings.
	ChannelHybrid Channel = "hybrid"
)

// Channels lists every channel, in a fixed order; the generator turns it
// into the schema's enum.
var Channels = []Channel{ChannelBM25, ChannelDense, ChannelHybrid}

// SearchQuery asks for the passages that best match a query.
type SearchQuery struct {
	// Query is the user's text.
	Query string `json:"query"`
	// K is how many passages to return; 0 means the sidecar's default.
	K int `json:"k,omitempty"`
	// Channel picks the ranking; empty means hybrid when the sidecar has
	// an embedder, else bm25.
	Channel Channel `json:"channel,omitempty"`
	// Folder, when set, keeps only the passages of notes under this
	// vault-relative folder, at any depth. The filter is applied before
	// the cut to K, so K passages come back when K inside it match.
	Folder string `json:"folder,omitempty"`
	// Tag, when set, keeps only the passages of notes with this tag or a
	// tag nested under it ("garden" keeps "garden/herbs"); a leading "#"
	// and case do not matter.
	Tag string `json:"tag,omitempty"`
	// MCP says the result goes to an MCP client: private notes are left
	// out unless the config's mcp.private is include.
	MCP bool `json:"mcp,omitempty"`
	// Typing says the query is still being typed (a search box): its last
	// word also matches the words it begins ("sourd" finds "sourdough"),
	// below the notes that hold it whole.
	Typing bool `json:"typing,omitempty"`
	// Explain asks for how the sidecar reads the query (its language,
	// synonyms and translations) in SearchResult.Explain, as `quire
	// search --explain` prints it.
	Explain bool `json:"explain,omitempty"`
}

// SearchResult answers a search.query with passages, best first.
type SearchResult struct {
	// Passages are the matches, best first; empty when nothing matched.
	Passages []Passage `json:"passages"`
	// Channel is the ranking actually used, which differs from the one
	// asked for when the sidecar had to fall back (embedder down).
	Channel Channel `json:"channel"`
	// Warning says why results are partial or fell back, e.g. "embedder
	// down, showing keyword results"; empty when all is well.
	Warning string `json:"warning,omitempty"`
	// Dates is the span of days the query named ("last week", "in March
	// 2024"): notes dated inside it come first, and its words are not
	// searched. Absent when the query names no days.
	Dates *DateSpan `json:"dates,omitempty"`
	// Explain is how the sidecar read the query, when the query asked.
	Explain string `json:"explain,omitempty"`
}

// DateSpan is a span of days a query named.
type DateSpan struct {
	// From and Through are its first and last day, YYYY-MM-DD.
	From    string `json:"from"`
	Through string `json:"through"`
	// Phrase is the query's words that named it, as written.
	Phrase string `json:"phrase"`
}

// Passage is a slice of a note: the raw Markdown between two byte offsets.
// A PDF's passage (Path ends in .pdf) is text read from the PDF: Start and
// End are then offsets in that text, not in the file, and Page says where
// it is.
type Passage struct {
	// ID names the passage within the index ("<path>#<n>"); answers cite
	// passages by it. It changes when the note is re-chunked.
	ID string `json:"id"`
	// Source is the id of the source the note is in: "vault" for the
	// vault, else a git or folder source's id from config.yaml. Open a
	// note of another source read-only: it is not a file of the vault.
	Source string `json:"source"`
	// Path is the note's path inside its source (vault-relative for the
	// vault), with forward slashes.
	Path string `json:"path"`
	// Title is the note's title (frontmatter title, else the file name).
	Title string `json:"title"`
	// HeadingPath is the breadcrumb of headings above the passage, outermost
	// first; empty for text before the first heading.
	HeadingPath []string `json:"headingPath"`
	// Start is the byte offset where the passage begins in the note file.
	Start int `json:"start"`
	// End is the byte offset just past the passage.
	End int `json:"end"`
	// Text is the note's bytes from Start to End.
	Text string `json:"text"`
	// Page is the page of a PDF the passage starts on, 1-based; absent
	// for a note. A front end opens the PDF at it ("file.pdf#page=N").
	Page int `json:"page,omitempty"`
	// Score ranks passages within one reply; it is not comparable across
	// replies or channels.
	Score float64 `json:"score"`
	// Matches are the passage's words that the query matched, lowercased,
	// in the order they occur: the same stem as a query word or one of its
	// translations, stop words left out. A front end marks them. Set in
	// search.result only.
	Matches []string `json:"matches,omitempty"`
}

// RelatedQuery asks for the notes closest to a note or to a piece of text.
// Exactly one of Path and Text is set.
type RelatedQuery struct {
	// Path is a vault-relative note path; that note is left out of the
	// results.
	Path string `json:"path,omitempty"`
	// Text is free text, e.g. the unsaved editor content.
	Text string `json:"text,omitempty"`
	// From is the vault-relative note Text was typed in, if any: the text
	// of a private note is searched on this machine only.
	From string `json:"from,omitempty"`
	// K is how many notes to return; 0 means the sidecar's default.
	K int `json:"k,omitempty"`
	// Exclude lists vault-relative folders whose notes are never related
	// (an archive, daily notes), at any depth. They are left out before
	// the cut to K, so K notes still come back when that many others
	// match.
	Exclude []string `json:"exclude,omitempty"`
}

// RelatedResult answers a related.query with notes, closest first.
type RelatedResult struct {
	// Notes are the related notes, closest first, never the queried note.
	Notes []RelatedNote `json:"notes"`
	// Warning says why results are partial or fell back; empty when all is
	// well.
	Warning string `json:"warning,omitempty"`
}

// RelatedNote is a note related to the query, with its closest passage.
type RelatedNote struct {
	// Source is the id of the note's source ("vault" for the vault).
	Source string `json:"source"`
	// Path is the note's path inside its source.
	Path string `json:"path"`
	// Title is the note's title.
	Title string `json:"title"`
	// Score ranks notes within one reply.
	Score float64 `json:"score"`
	// Passage is the note's passage closest to the query.
	Passage Passage `json:"passage"`
	// More are the note's other passages that matched, best first (a
	// few at most), shown when the note's row is expanded.
	More []Passage `json:"more,omitempty"`
}
