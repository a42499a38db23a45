package proto

import "encoding/json"

// Grep message types.
const (
	TypeGrepQuery  = "grep.query"
	TypeGrepResult = "grep.result"
)

// GrepQuery searches the current files of the vault (and of other
// sources) line by line for a literal string or a regular expression:
// no index, so exact strings the keyword index cuts apart are found.
type GrepQuery struct {
	// Pattern is the string, or with Regex a regular expression (Go's
	// RE2 syntax); no line break.
	Pattern string `json:"pattern"`
	Regex   bool   `json:"regex,omitempty"`
	// Case is smart (the default: sensitive when Pattern has an
	// upper-case letter), sensitive or ignore.
	Case string `json:"case,omitempty"`
	// Context is how many lines to give before and after each match.
	Context int `json:"context,omitempty"`
	// Source keeps one source by id ("vault" for the vault).
	Source string `json:"source,omitempty"`
	// MaxMatches bounds the matching lines (the sidecar's default when 0).
	MaxMatches int `json:"maxMatches,omitempty"`
	// MCP says the lines go to an MCP client: private notes are left
	// out unless the config's mcp.private is include.
	MCP bool `json:"mcp,omitempty"`
}

// GrepResult answers a grep.query, matches in source, path and line order.
type GrepResult struct {
	Matches []GrepMatch `json:"matches"`
	// Files is how many files were opened, Skipped those left out (too
	// large, binary, not UTF-8, unreadable).
	Files   int        `json:"files"`
	Skipped []GrepSkip `json:"skipped"`
	// Truncated says the search stopped at its match limit, TimedOut at
	// its time limit; Warning then says so in a sentence.
	Truncated bool   `json:"truncated"`
	TimedOut  bool   `json:"timedOut"`
	Warning   string `json:"warning,omitempty"`
}

// GrepMatch is one matching line.
type GrepMatch struct {
	Source string `json:"source"`
	// Path is the file's path inside its source.
	Path string `json:"path"`
	// Line is the 1-based line number; Text the line without its ending.
	Line int    `json:"line"`
	Text string `json:"text"`
	// Spans are the byte ranges [start, end) of the matches in Text.
	Spans  [][2]int `json:"spans"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// GrepSkip is a file a grep left out, and why.
type GrepSkip struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// MarshalJSON encodes Matches and Skipped as [] when nil (see arrays.go).
func (r GrepResult) MarshalJSON() ([]byte, error) {
	type plain GrepResult
	if r.Matches == nil {
		r.Matches = []GrepMatch{}
	}
	if r.Skipped == nil {
		r.Skipped = []GrepSkip{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes Spans as [] when nil.
func (m GrepMatch) MarshalJSON() ([]byte, error) {
	type plain GrepMatch
	if m.Spans == nil {
		m.Spans = [][2]int{}
	}
	return json.Marshal(plain(m))
}
