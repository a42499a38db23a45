package ingest

// Event is something the ingest worker or compiler reports as it works:
// Progress, Done, Failed, Written or Reviewed. Front ends map them to
// what they show (the server to protocol events).
type Event interface{ ingestEvent() }

// Step is the stage an item is in.
type Step string

// Ingest steps, in the order an item goes through them.
const (
	StepQueued     Step = "queued"     // waiting for the worker
	StepFetching   Step = "fetching"   // downloading the page or reading the file
	StepExtracting Step = "extracting" // turning HTML or PDF into clean text
	StepReading    Step = "reading"    // the model reads the source chunk by chunk
	StepPlanning   Step = "planning"   // the model merges its notes into a plan
	StepLinking    Step = "linking"    // finding connections to existing pages
	StepWriting    Step = "writing"    // checking claims and writing notes
)

// Progress says which step an item is in; Index and Total count the
// step's parts when it has several (chunks read), both 0 otherwise.
type Progress struct {
	ID           uint64
	Source       string
	Step         Step
	Index, Total int
}

// Dropped counts model output that failed a trust check, or source
// images and links extraction removed (private or local addresses, images
// past extract.MaxImages), left out of the notes.
type Dropped struct {
	// What names the kind of item: "quote", "term", "concept", "entity",
	// "link", "url", "image".
	What   string
	Count  int
	Reason string // a short sentence, e.g. "not in the source"
}

// Done says an item became notes.
type Done struct {
	ID     uint64
	Source string
	Note   string // the source note, vault-relative
	Title  string
	// Written lists every note created or extended, the source note first.
	Written []string
	Review  []string // review items created
	Dropped []Dropped
	// Summarised is false when no model read the source.
	Summarised bool
	// Unread is the share of the source (0..1) the model did not read
	// because of the per-source call cap.
	Unread float64
}

// FailCode is the kind of an ingest failure.
type FailCode string

// Failure kinds.
const (
	FailDuplicate FailCode = "duplicate"         // already ingested
	FailBlocked   FailCode = "blocked"           // the fetch guard refused the address
	FailFetch     FailCode = "fetch_failed"      // the download failed
	FailExtract   FailCode = "extract_failed"    // no text could be extracted
	FailModel     FailCode = "model_unavailable" // the model did not answer; retryable
	FailInternal  FailCode = "internal"          // a bug or a disk problem
)

// Failed says an item could not be ingested.
type Failed struct {
	ID      uint64
	Source  string
	Code    FailCode
	Message string // a short sentence for people
}

// Written says a note was created or extended.
type Written struct {
	Path    string // vault-relative
	Kind    string // "source", "concept", "entity", "answer", "index" or "log"
	Created bool   // false when an existing note was extended
}

// Reviewed says a review item was written: something not decided alone.
type Reviewed struct {
	Path   string // vault-relative, under <folder>/Review/
	Reason string // what to look at
	About  string // the note it concerns, if any
}

func (Progress) ingestEvent() {}
func (Done) ingestEvent()     {}
func (Failed) ingestEvent()   {}
func (Written) ingestEvent()  {}
func (Reviewed) ingestEvent() {}
