package proto

// Note message types.
const (
	TypeNoteGet    = "note.get"
	TypeNoteResult = "note.result"
)

// NoteGet asks for the text of an indexed note. Paths the index does not
// hold get not_found, so the protocol cannot read arbitrary files.
type NoteGet struct {
	// Source is the id of the note's source: "vault" (the default) for
	// the vault, else a git or folder source's id. A git source's note is
	// read as the index holds it, at the revision indexed.
	Source string `json:"source,omitempty"`
	// Path is the note's path inside its source (vault-relative for the
	// vault).
	Path string `json:"path"`
	// MCP says the text goes to an MCP client: a private note is refused
	// unless the config's mcp.private is include.
	MCP bool `json:"mcp,omitempty"`
}

// NoteResult answers a note.get with the note's current text.
type NoteResult struct {
	// Source is the id of the note's source, as asked ("vault" for the
	// vault). A client that asked for another source's note and meets a
	// reply without it is talking to an engine that read a vault path.
	Source string `json:"source"`
	// Revision is the git commit the text was read at, for a git
	// source's note.
	Revision string `json:"revision,omitempty"`
	// Path is the note's path inside its source.
	Path string `json:"path"`
	// Text is the whole file as UTF-8; passages' byte ranges index into it.
	Text string `json:"text"`
}
