package proto

// Ingest message types. ingest.add puts a source in the sidecar's durable
// queue and is answered at once by ingest.result (or an error: a duplicate
// is refused before any fetch or model call). The item's life is then
// pushed to every client as events carrying its id, so a client that
// reconnects, or another window, still sees it finish: ingest.progress a
// few times per step, then one ingest.done or ingest.failed.
const (
	TypeIngestAdd      = "ingest.add"
	TypeIngestResult   = "ingest.result"
	TypeIngestProgress = "ingest.progress"
	TypeIngestDone     = "ingest.done"
	TypeIngestFailed   = "ingest.failed"

	TypeQueueList   = "queue.list"
	TypeQueueResult = "queue.result"

	TypeNoteWritten   = "note.written"
	TypeReviewCreated = "review.created"
)

// IngestAdd asks the sidecar to ingest a web page or a file.
type IngestAdd struct {
	// Source is an http(s) URL, or the absolute path of a file on the
	// sidecar's machine (PDF, HTML, Markdown or text).
	Source string `json:"source"`
	// Resummarise reads again, with the model, a source that was saved
	// earlier without a summary (no model was available then); Source is
	// then the URL or file it came from.
	Resummarise bool `json:"resummarise,omitempty"`
}

// IngestResult answers ingest.add: the source is in the queue.
type IngestResult struct {
	// ID is the queue item's id; the events about it carry the same id.
	ID uint64 `json:"id"`
	// Source is the source as given.
	Source string `json:"source"`
	// Position is how many items are ahead of it (0: it runs next).
	Position int `json:"position"`
}

// IngestStep names a stage of one source's ingest.
type IngestStep string

// Ingest steps, in the order an item goes through them.
const (
	// StepQueued: waiting for the worker.
	StepQueued IngestStep = "queued"
	// StepFetching: downloading the page or reading the file.
	StepFetching IngestStep = "fetching"
	// StepExtracting: turning HTML or PDF into clean text.
	StepExtracting IngestStep = "extracting"
	// StepReading: the model reads the source chunk by chunk (Index of
	// Total chunks).
	StepReading IngestStep = "reading"
	// StepPlanning: the model merges its notes into the note's plan.
	StepPlanning IngestStep = "planning"
	// StepLinking: finding connections to existing pages.
	StepLinking IngestStep = "linking"
	// StepWriting: checking claims against the source and writing notes.
	StepWriting IngestStep = "writing"
)

// IngestSteps lists every step, in order; the generator turns it into the
// schema's enum.
var IngestSteps = []IngestStep{StepQueued, StepFetching, StepExtracting, StepReading, StepPlanning, StepLinking, StepWriting}

// IngestProgress reports where an item stands.
type IngestProgress struct {
	// ID is the queue item's id.
	ID uint64 `json:"id"`
	// Source is the URL or file as given.
	Source string `json:"source"`
	// Step is the stage it is in.
	Step IngestStep `json:"step"`
	// Index and Total count the step's parts when it has several (chunks
	// read); both 0 otherwise.
	Index int `json:"index"`
	Total int `json:"total"`
}

// Dropped counts model output that failed a trust check and was left out of
// the notes.
type Dropped struct {
	// What names the kind of item: "quote", "term", "concept", "entity",
	// "link", "url", "image".
	What string `json:"what"`
	// Count is how many were dropped.
	Count int `json:"count"`
	// Reason is a short sentence, e.g. "not in the source".
	Reason string `json:"reason"`
}

// IngestDone says an item became notes.
type IngestDone struct {
	// ID is the queue item's id.
	ID uint64 `json:"id"`
	// Source is the URL or file as given.
	Source string `json:"source"`
	// Note is the source note, vault-relative.
	Note string `json:"note"`
	// Title is the source note's title.
	Title string `json:"title"`
	// Written lists every note created or extended, the source note first.
	Written []string `json:"written"`
	// Review lists the review items created (Quire/Review/...).
	Review []string `json:"review"`
	// Dropped counts what the trust checks removed.
	Dropped []Dropped `json:"dropped"`
	// Summarised is false when no model read the source: the note holds the
	// clean text and related pages, and can be summarised later.
	Summarised bool `json:"summarised"`
	// Unread is the share of the source (0..1) the model did not read
	// because of the per-source call cap; the note says so at its top.
	Unread float64 `json:"unread"`
}

// IngestFailCode is why an item failed.
type IngestFailCode string

// Ingest failure codes.
const (
	// FailDuplicate: the same page (by address or by text) is already
	// ingested or queued.
	FailDuplicate IngestFailCode = "duplicate"
	// FailBlocked: the address is not allowed (a private or local network,
	// a scheme other than http and https).
	FailBlocked IngestFailCode = "blocked"
	// FailFetch: the site did not answer well (timeout, HTTP error, too
	// large, a type other than HTML, PDF or text).
	FailFetch IngestFailCode = "fetch_failed"
	// FailExtract: the file could not be read (a password-protected or
	// broken PDF, no readable text, an unsupported type).
	FailExtract IngestFailCode = "extract_failed"
	// FailModel: the model did not answer; the item can be retried.
	FailModel IngestFailCode = "model_unavailable"
	// FailInternal: anything else; the sidecar's log has the detail.
	FailInternal IngestFailCode = "internal"
)

// IngestFailCodes lists every failure code; the generator turns it into the
// schema's enum.
var IngestFailCodes = []IngestFailCode{FailDuplicate, FailBlocked, FailFetch, FailExtract, FailModel, FailInternal}

// IngestFailed says an item failed.
type IngestFailed struct {
	// ID is the queue item's id.
	ID uint64 `json:"id"`
	// Source is the URL or file as given.
	Source string `json:"source"`
	// Code is the kind of failure.
	Code IngestFailCode `json:"code"`
	// Message is a short sentence for people, e.g. "example.com resolves to
	// a private address (10.0.0.5)".
	Message string `json:"message"`
}

// QueueList asks for the ingest queue's items. It has no fields.
type QueueList struct{}

// QueueItem is one item of the ingest queue.
type QueueItem struct {
	// ID is the item's id.
	ID uint64 `json:"id"`
	// Source is the URL or file as given.
	Source string `json:"source"`
	// State is "queued", "running", "done" or "failed".
	State string `json:"state"`
	// Attempts counts failures so far.
	Attempts int `json:"attempts"`
	// Error is the last failure's sentence, if any.
	Error string `json:"error,omitempty"`
	// Note is the source note written, once done.
	Note string `json:"note,omitempty"`
	// Added is when it was queued (RFC 3339).
	Added string `json:"added"`
}

// QueueResult lists the queue, oldest first.
type QueueResult struct {
	// Items are the queue's items.
	Items []QueueItem `json:"items"`
}

// NoteWritten tells clients the sidecar wrote a note into the vault (a
// source, concept or entity page, an answer, Quire/index.md).
type NoteWritten struct {
	// Path is the note, vault-relative.
	Path string `json:"path"`
	// Kind is "source", "concept", "entity", "answer", "index" or "log".
	Kind string `json:"kind"`
	// Created is true for a new note, false for one extended.
	Created bool `json:"created"`
}

// ReviewCreated tells clients the sidecar wrote a review item: something
// it would not decide alone (a contradiction with an existing page, a
// generated page the user has edited since).
type ReviewCreated struct {
	// Path is the review note, vault-relative (under Quire/Review/).
	Path string `json:"path"`
	// Reason is a short sentence saying what to look at.
	Reason string `json:"reason"`
	// About is the note the item concerns, vault-relative, if any.
	About string `json:"about,omitempty"`
}
