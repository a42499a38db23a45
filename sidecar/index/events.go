package index

import (
	"fmt"
	"time"
)

// Progress phases.
const (
	PhaseIndex = "index" // Run: notes (re-)read and chunked
	PhaseEmbed = "embed" // Embed: passages given vectors
)

// Progress is how far a Run or an Embed has come: notes for PhaseIndex,
// passages for PhaseEmbed. It is a value, not a line of text, so that a
// front end words it as it likes and nobody parses it back.
type Progress struct {
	Phase string
	Done  int
	Total int
	// Windows is, for PhaseEmbed, how many token windows the embedder has
	// read so far (a long passage is read in several).
	Windows int
	// PerSecond is, for PhaseEmbed once a batch is done, the passages
	// embedded per second of wall time since this Embed began, and Left
	// the time the rest would take at that rate: an estimate, 0 until
	// measured.
	PerSecond float64
	Left      time.Duration
}

// rate is n passages in took, and the time rest more would take at it;
// zeros before anything was measured.
func rate(n, rest int, took time.Duration) (perSecond float64, left time.Duration) {
	if n <= 0 || took <= 0 {
		return 0, 0
	}
	perSecond = float64(n) / took.Seconds()
	return perSecond, time.Duration(float64(rest) / perSecond * float64(time.Second))
}

// progress reports p to ix.OnProgress, if set.
func (ix *Index) progress(p Progress) {
	if f := ix.OnProgress; f != nil {
		f(p)
	}
}

// Progress is reported a few times a second, and at every twentieth of
// the total, however fast the pass (a small vault's pass still shows its
// steps): the start and the end of a phase always. This is the one place
// progress is thinned; the websocket, MCP and the command line pass on
// what the index reports.
const (
	progressSteps = 20
	progressWait  = 250 * time.Millisecond
)

// thinner decides which of one pass's steps are reported.
type thinner struct {
	step     int       // units between two reports by count
	lastDone int       // done at the last report
	last     time.Time // when the last report went
}

func newThinner(total int) *thinner {
	return &thinner{step: max(1, total/progressSteps), last: time.Now()}
}

// due reports whether done of total is reported, and records it when it
// is: the start and the end always, a step in between when it is a
// twentieth of the total past the last report, or progressWait later.
func (t *thinner) due(done, total int) bool {
	if done > 0 && done < total && done-t.lastDone < t.step && time.Since(t.last) < progressWait {
		return false
	}
	t.lastDone, t.last = done, time.Now()
	return true
}

// Invalidate makes the next Run re-read and re-chunk every note, as a
// rebuild does, while the passages already indexed keep answering searches
// until each note's new ones replace them. It forgets each note's size,
// mtime and hash but keeps its passage count, so that Run replaces (not
// duplicates) its passages.
func (ix *Index) Invalidate() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	entries, err := ix.cat.entries()
	if err != nil {
		return fmt.Errorf("invalidate catalog: %w", err)
	}
	changes := make(map[string]*Entry, len(entries))
	for p, e := range entries {
		e.Size, e.ModTime, e.Hash = -1, 0, ""
		changes[p] = &e
	}
	if err := ix.cat.apply(changes); err != nil {
		return fmt.Errorf("invalidate catalog: %w", err)
	}
	// A git source's next sync compares its revision whole with the
	// catalog, whose hashes no longer match: every note is read again.
	ids, err := ix.cat.sourceIDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		st, err := ix.cat.sourceState(id)
		if err != nil {
			return err
		}
		st.Revision = ""
		if err := ix.cat.setSourceState(id, &st); err != nil {
			return err
		}
	}
	return nil
}
