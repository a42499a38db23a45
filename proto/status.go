package proto

import "time"

// Status message types.
const (
	TypeStatusGet    = "status.get"
	TypeStatusResult = "status.result"
)

// StatusGet asks for the state of the index. It has no fields.
type StatusGet struct{}

// StatusResult describes the index as the sidecar holds it now.
type StatusResult struct {
	// Version is the sidecar's release version.
	Version string `json:"version"`
	// Notes is the number of indexed notes.
	Notes int `json:"notes"`
	// Chunks is the number of indexed passages over all notes.
	Chunks int `json:"chunks"`
	// Skipped lists the Markdown files left out of the index, with why.
	Skipped []SkippedFile `json:"skipped"`
	// Warnings lists notes that are indexed despite a problem (e.g. broken
	// frontmatter), with what it is.
	Warnings []SkippedFile `json:"warnings"`
	// Languages counts the indexed notes per language code ("en", "cs");
	// notes whose language is unknown count under "unknown".
	Languages map[string]int `json:"languages"`
	// Coverage says how much of the index is searchable by each channel.
	Coverage Coverage `json:"coverage"`
	// Indexing is true while a scan, rebuild or catch-up runs; its
	// progress arrives as index.progress events.
	Indexing bool `json:"indexing"`
	// LastIndexed is when the last index pass finished, absent before the
	// first one (RFC 3339).
	LastIndexed time.Time `json:"lastIndexed,omitzero"`
	// Fingerprint names what the vectors were computed with; when it
	// changes the vectors are rebuilt.
	Fingerprint Fingerprint `json:"fingerprint"`
}

// SkippedFile is a Markdown file that is not in the index.
type SkippedFile struct {
	// Path is vault-relative, with forward slashes.
	Path string `json:"path"`
	// Reason is a short phrase for people, e.g. "not UTF-8" or "over 2 MiB".
	Reason string `json:"reason"`
}

// Coverage counts how many chunks each channel can search.
type Coverage struct {
	// VectorsDone is the number of chunks that have a vector.
	VectorsDone int `json:"vectorsDone"`
	// VectorsTotal is the number of chunks that should have one; below it,
	// dense and hybrid search see part of the vault.
	VectorsTotal int `json:"vectorsTotal"`
	// PerSecond is, while passages are being embedded, how many this run
	// has embedded per second of wall time; absent otherwise.
	PerSecond float64 `json:"perSecond,omitempty"`
	// SecondsLeft is the time the passages left would take at that rate:
	// an estimate, absent until measured.
	SecondsLeft float64 `json:"secondsLeft,omitempty"`
}

// Fingerprint identifies the embedder and chunking that the stored vectors
// depend on.
type Fingerprint struct {
	// Embedder names the embedding model, e.g. "use-lite".
	Embedder string `json:"embedder"`
	// Dims is the vector length.
	Dims int `json:"dims"`
	// Chunking names the chunking parameters, e.g. "md-v1/512/64".
	Chunking string `json:"chunking"`
}
