package proto

import "encoding/json"

// Go encodes a nil slice as null, but the schema (and so the TypeScript
// types) promise an array: a client calling result.passages.map must not
// meet null because the server built an empty result with a nil slice.
// These encoders send [] instead. Each converts to a local type without
// methods so that json.Marshal does not call itself.

// MarshalJSON encodes Skipped and Warnings as [] and Languages as {} when
// nil.
func (r StatusResult) MarshalJSON() ([]byte, error) {
	type plain StatusResult
	if r.Skipped == nil {
		r.Skipped = []SkippedFile{}
	}
	if r.Warnings == nil {
		r.Warnings = []SkippedFile{}
	}
	if r.Languages == nil {
		r.Languages = map[string]int{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes Passages as [] when nil.
func (r SearchResult) MarshalJSON() ([]byte, error) {
	type plain SearchResult
	if r.Passages == nil {
		r.Passages = []Passage{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes HeadingPath as [] when nil.
func (p Passage) MarshalJSON() ([]byte, error) {
	type plain Passage
	if p.HeadingPath == nil {
		p.HeadingPath = []string{}
	}
	return json.Marshal(plain(p))
}

// MarshalJSON encodes Notes as [] when nil.
func (r RelatedResult) MarshalJSON() ([]byte, error) {
	type plain RelatedResult
	if r.Notes == nil {
		r.Notes = []RelatedNote{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes Paths as [] when nil.
func (c IndexChanged) MarshalJSON() ([]byte, error) {
	type plain IndexChanged
	if c.Paths == nil {
		c.Paths = []string{}
	}
	return json.Marshal(plain(c))
}

// MarshalJSON encodes Citations, Quotes and Passages as [] when nil.
func (d AskDone) MarshalJSON() ([]byte, error) {
	type plain AskDone
	if d.Citations == nil {
		d.Citations = []Citation{}
	}
	if d.Quotes == nil {
		d.Quotes = []Quote{}
	}
	if d.Passages == nil {
		d.Passages = []string{}
	}
	return json.Marshal(plain(d))
}

// MarshalJSON encodes HeadingPath as [] when nil.
func (c Citation) MarshalJSON() ([]byte, error) {
	type plain Citation
	if c.HeadingPath == nil {
		c.HeadingPath = []string{}
	}
	return json.Marshal(plain(c))
}

// MarshalJSON encodes Items as [] when nil.
func (r QueueResult) MarshalJSON() ([]byte, error) {
	type plain QueueResult
	if r.Items == nil {
		r.Items = []QueueItem{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes Written, Review and Dropped as [] when nil.
func (d IngestDone) MarshalJSON() ([]byte, error) {
	type plain IngestDone
	if d.Written == nil {
		d.Written = []string{}
	}
	if d.Review == nil {
		d.Review = []string{}
	}
	if d.Dropped == nil {
		d.Dropped = []Dropped{}
	}
	return json.Marshal(plain(d))
}

// MarshalJSON encodes Ignore as [] when nil.
func (s Settings) MarshalJSON() ([]byte, error) {
	type plain Settings
	if s.Ignore == nil {
		s.Ignore = []string{}
	}
	return json.Marshal(plain(s))
}

// MarshalJSON encodes Restart as [] when nil.
func (r ConfigResult) MarshalJSON() ([]byte, error) {
	type plain ConfigResult
	if r.Restart == nil {
		r.Restart = []string{}
	}
	return json.Marshal(plain(r))
}

// MarshalJSON encodes Defects and Review as [] when nil.
func (r LintResult) MarshalJSON() ([]byte, error) {
	type plain LintResult
	if r.Defects == nil {
		r.Defects = []LintDefect{}
	}
	if r.Review == nil {
		r.Review = []string{}
	}
	return json.Marshal(plain(r))
}
