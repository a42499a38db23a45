package proto

// Ask message types. ask.query is a streaming request: zero or more
// ask.delta frames, then one ask.done (or an error).
const (
	TypeAskQuery = "ask.query"
	TypeAskDelta = "ask.delta"
	TypeAskDone  = "ask.done"

	TypeAnswerSave   = "answer.save"
	TypeAnswerResult = "answer.result"
)

// AskQuery asks a question of the vault. The answer is built only from
// the vault's passages, and every citation in it is checked.
type AskQuery struct {
	// Question is the user's question, in any language; the answer comes
	// in the same language.
	Question string `json:"question"`
	// K is how many passages to retrieve before packing the model's
	// context; 0 means the sidecar's default.
	K int `json:"k,omitempty"`
	// Channel picks the retrieval; empty means hybrid when the index has
	// vectors, else bm25.
	Channel Channel `json:"channel,omitempty"`
	// History holds the conversation's earlier turns, oldest first, for a
	// follow-up question ("and the vegetarian ones?"). The sidecar gives
	// the model the latest turns that fit a share of its context budget
	// and drops the oldest; earlier answers are never cited as sources.
	History []AskTurn `json:"history,omitempty"`
	// Folder, when set, answers from the passages of notes under this
	// vault-relative folder only, at any depth (as in search.query: the
	// filter comes before the cut to K).
	Folder string `json:"folder,omitempty"`
	// Tag, when set, answers from the passages of notes with this tag or
	// one nested under it only; a leading "#" and case do not matter.
	Tag string `json:"tag,omitempty"`
	// Note, when set, answers from the passages of this vault-relative
	// note only ("ask about this note").
	Note string `json:"note,omitempty"`
	// MCP says the answer goes to an MCP client: it is made without
	// private notes unless the config's mcp.private is include.
	MCP bool `json:"mcp,omitempty"`
}

// AskTurn is an earlier question of a conversation and the answer it got.
type AskTurn struct {
	// Question is what was asked.
	Question string `json:"question"`
	// Answer is the answer's text as shown (its [n] markers refer to that
	// turn's sources and are removed before the model sees it).
	Answer string `json:"answer"`
	// Passages are the ids of the passages that turn's answer was built
	// from (its ask.done passages). With a remote model and private
	// folders, an earlier answer goes to the model only when none of them
	// is private: without them the answer is left out and the question
	// kept, since an answer can quote a private note.
	Passages []string `json:"passages,omitempty"`
}

// AskDelta carries the next piece of the answer's text as the model
// writes it; a client appends the pieces. Citations of passages that were
// not given are already left out. The ask.done answer replaces the
// streamed text: it can differ (a refusal, or extracted sentences when the
// model failed mid-answer).
type AskDelta struct {
	// Text is the piece to append.
	Text string `json:"text"`
}

// AskDone is the final, checked answer.
type AskDone struct {
	// Answer is the answer's Markdown with [n] after each claim, where n is
	// a citation's number; or the refusal; or, when extracted, a label line
	// followed by quoted sentences from the notes.
	Answer string `json:"answer"`
	// Lang is the question's language code ("en", "es", "it", "cs"), which
	// the answer is in.
	Lang string `json:"lang"`
	// Citations are the passages the answer cites, in order of first use.
	Citations []Citation `json:"citations"`
	// Quotes are the quotations in the answer, each checked against the
	// cited passages; an unverified one should be shown as doubtful.
	Quotes []Quote `json:"quotes"`
	// Grounded is true when the answer has at least one citation and every
	// citation names a passage that was given.
	Grounded bool `json:"grounded"`
	// Refused is true when the notes do not hold the answer; Answer is then
	// a sentence saying so.
	Refused bool `json:"refused"`
	// Extracted is true when no model answered (none configured, or it
	// failed: see Warning) and Answer holds sentences from the notes.
	Extracted bool `json:"extracted"`
	// DroppedCitations counts the invented citation numbers removed from
	// the model's answer.
	DroppedCitations int `json:"droppedCitations"`
	// Passages are the ids of the passages given to the model, in the
	// order given ([1] first).
	Passages []string `json:"passages"`
	// Channel is the retrieval actually used.
	Channel Channel `json:"channel"`
	// Warning says why the answer is degraded (no model, model down,
	// keyword results only); empty when all is well.
	Warning string `json:"warning,omitempty"`
	// Model is "provider/model"; empty when extracted.
	Model string `json:"model,omitempty"`
	// Remote is true when passages were sent to a model that is not on
	// this machine (passages of private folders never are).
	Remote bool `json:"remote"`
	// InputTokens and OutputTokens are as the model server counted them.
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	// Ms is how long the question took, end to end.
	Ms float64 `json:"ms"`
}

// Citation is a passage an answer cites: enough to show it in a hover and
// to notice that the note changed since (compare Hash with the SHA-256 of
// the note's bytes Start..End).
type Citation struct {
	// Number is what the answer cites it by: [Number].
	Number int `json:"number"`
	// ID is the passage's id in the index.
	ID string `json:"id"`
	// Source is the id of the source the note is in ("vault" for the
	// vault), as in Passage.
	Source string `json:"source"`
	// Path is the note's path inside its source.
	Path string `json:"path"`
	// Title is the note's title.
	Title string `json:"title"`
	// HeadingPath is the breadcrumb of headings above the passage,
	// outermost first.
	HeadingPath []string `json:"headingPath"`
	// Start and End are the passage's byte range in the note file.
	Start int `json:"start"`
	End   int `json:"end"`
	// Text is the passage's raw Markdown.
	Text string `json:"text"`
	// Hash is the hex SHA-256 of Text.
	Hash string `json:"hash"`
}

// Quote is a quotation in an answer.
type Quote struct {
	// Number is the citation it was found in or attributed to; 0 if none.
	Number int `json:"number"`
	// Text is the quotation as the model wrote it.
	Text string `json:"text"`
	// Verified is true when Text occurs in a cited passage (case and
	// whitespace aside).
	Verified bool `json:"verified"`
}

// AnswerSave writes an answer given earlier on this connection's sidecar
// to a note in Quire/Answers/, with its citations as links to the cited
// notes and headings and their byte ranges and hashes in the frontmatter.
// The sidecar keeps the last answers for a while; an older one is
// not_found. An existing note is never overwritten (a new name instead).
type AnswerSave struct {
	// AskID is the id of the ask.query request whose answer to save.
	AskID string `json:"askId"`
}

// AnswerResult says where the answer was saved.
type AnswerResult struct {
	// Path is the new note, vault-relative with forward slashes.
	Path string `json:"path"`
}
