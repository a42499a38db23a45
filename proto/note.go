package proto

// Note message types.
const (
	TypeNoteGet    = "note.get"
	TypeNoteResult = "note.result"
)

// NoteGet asks for the text of an indexed note. Paths the index does not
// hold get not_found, so the protocol cannot read arbitrary files.
type NoteGet struct {
	// Path is the note's vault-relative path.
	Path string `json:"path"`
	// MCP says the text goes to an MCP client: a private note is refused
	// unless the config's mcp.private is include.
	MCP bool `json:"mcp,omitempty"`
}

// NoteResult answers a note.get with the note's current text.
type NoteResult struct {
	// Path is the note's vault-relative path.
	Path string `json:"path"`
	// Text is the whole file as UTF-8; passages' byte ranges index into it.
	Text string `json:"text"`
}
