package proto

import (
	"encoding/json"
	"time"
)

// Source message types: the sources beside the vault (git repositories
// and folders from config.yaml) and their tables of contents.
const (
	TypeSourcesList   = "sources.list"
	TypeSourcesResult = "sources.result"
	TypeTOCGet        = "toc.get"
	TypeTOCResult     = "toc.result"
)

// SourcesList asks for the vault and every configured source with what
// the index holds of each.
type SourcesList struct {
	// Sync brings every source up to date first, fetching the mirrors of
	// url sources whatever their fetch policy; the reply waits for it.
	Sync bool `json:"sync,omitempty"`
}

// SourcesResult answers a sources.list, the vault first.
type SourcesResult struct {
	Sources []SourceInfo `json:"sources"`
	// Warning says why a sync asked for failed (the index serves what it
	// holds); empty when all is well.
	Warning string `json:"warning,omitempty"`
}

// SourceInfo is one source as the index holds it.
type SourceInfo struct {
	// ID is the source's id: "vault", or its key under sources:.
	ID string `json:"id"`
	// Kind is vault, git or folder.
	Kind string `json:"kind"`
	// Where is the clone's path, the remote's URL or the folder.
	Where string `json:"where"`
	// Revision is the git commit whose notes the index holds.
	Revision string `json:"revision,omitempty"`
	Notes    int    `json:"notes"`
	Passages int    `json:"passages"`
	Vectors  int    `json:"vectors"`
	// LastFetch is when a url source's mirror was last fetched, LastSync
	// when the index last caught up with the source.
	LastFetch time.Time `json:"lastFetch,omitzero"`
	LastSync  time.Time `json:"lastSync,omitzero"`
	// Error is why the source's last sync failed.
	Error string `json:"error,omitempty"`
	// Skipped are its files left out, each "path: reason".
	Skipped []string `json:"skipped,omitempty"`
}

// TOCGet asks for a source's table of contents, generated from what the
// index holds of it.
type TOCGet struct {
	// Source is the source's id; "vault" (the default) for the vault.
	Source string `json:"source,omitempty"`
	// MCP says the table goes to an MCP client: private notes are left
	// out unless the config's mcp.private is include.
	MCP bool `json:"mcp,omitempty"`
}

// TOCResult answers a toc.get: folder → note → title, tags, headings.
type TOCResult struct {
	Source string `json:"source"`
	// Revision is the git commit the table was made from (git sources).
	Revision string      `json:"revision,omitempty"`
	Folders  []TOCFolder `json:"folders"`
	// Withheld counts the private notes left out for an MCP client.
	Withheld int `json:"withheld,omitempty"`
}

// TOCFolder is one folder's notes, by path; "" is the source's root.
type TOCFolder struct {
	Folder string    `json:"folder"`
	Notes  []TOCNote `json:"notes"`
}

// TOCNote is a note of a table of contents.
type TOCNote struct {
	// Source is the note's source id; Path its path inside the source.
	Source   string       `json:"source"`
	Path     string       `json:"path"`
	Title    string       `json:"title"`
	Tags     []string     `json:"tags,omitempty"`
	Headings []TOCHeading `json:"headings,omitempty"`
}

// TOCHeading is a heading of a note, Depth 1 for the outermost.
type TOCHeading struct {
	Depth int    `json:"depth"`
	Text  string `json:"text"`
}

// MarshalJSON encodes Sources as [] when nil.
func (r SourcesResult) MarshalJSON() ([]byte, error) {
	type plain SourcesResult
	if r.Sources == nil {
		r.Sources = []SourceInfo{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes Folders as [] when nil.
func (r TOCResult) MarshalJSON() ([]byte, error) {
	type plain TOCResult
	if r.Folders == nil {
		r.Folders = []TOCFolder{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes Notes as [] when nil.
func (f TOCFolder) MarshalJSON() ([]byte, error) {
	type plain TOCFolder
	if f.Notes == nil {
		f.Notes = []TOCNote{}
	}
	return json.Marshal(plain(f))
}
