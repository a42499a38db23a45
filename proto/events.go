package proto

// Pushed event types. Events have no id.
const (
	TypeIndexProgress  = "index.progress"
	TypeIndexChanged   = "index.changed"
	TypeSidecarWarning = "sidecar.warning"
)

// Phase names a stage of an index pass.
type Phase string

// Index phases, in the order a pass goes through them.
const (
	// PhaseScan compares the vault's files with the catalog.
	PhaseScan Phase = "scan"
	// PhaseIndex chunks changed notes and updates the keyword index.
	PhaseIndex Phase = "index"
	// PhaseEmbed computes vectors for new chunks.
	PhaseEmbed Phase = "embed"
)

// Phases lists every phase, in order; the generator turns it into the
// schema's enum.
var Phases = []Phase{PhaseScan, PhaseIndex, PhaseEmbed}

// IndexProgress reports how far an index pass has come, a few times a second
// at most.
type IndexProgress struct {
	// Phase is the stage the pass is in.
	Phase Phase `json:"phase"`
	// Done counts the items finished in this phase (files or chunks).
	Done int `json:"done"`
	// Total counts the items this phase will handle.
	Total int `json:"total"`
	// PerSecond is, in the embed phase, the passages embedded per second
	// of wall time measured in this run; absent until measured.
	PerSecond float64 `json:"perSecond,omitempty"`
	// SecondsLeft is, in the embed phase, the time the passages left
	// would take at that rate: an estimate, absent until measured.
	SecondsLeft float64 `json:"secondsLeft,omitempty"`
}

// IndexChanged tells clients which notes' indexed content changed, so that
// views showing them can refresh.
type IndexChanged struct {
	// Paths are vault-relative paths added, changed or removed.
	Paths []string `json:"paths"`
}

// SidecarWarning tells clients about a problem that does not fail a request,
// e.g. the embedder went down and search fell back to keywords.
type SidecarWarning struct {
	// Message is a short sentence for people.
	Message string `json:"message"`
	// Code classifies the problem when it maps to an error code.
	Code ErrorCode `json:"code,omitempty"`
}
