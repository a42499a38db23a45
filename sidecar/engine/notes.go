package engine

import (
	"log/slog"
	"sync"

	"github.com/quire-app/quire/sidecar/index"
)

// notes is the catalog as a snapshot sees it. A sidecar holds the whole
// catalog in memory after its first pass, and a snapshot copies it as it
// was at that pass. A one-shot command (quire search) that runs no pass
// must not decode one record per note of the vault to answer one query:
// its snapshot reads a note's record when the query asks about that note
// (a candidate's dates, hub shape, supersession), and the whole catalog
// only when asked a whole-vault question (status, the main hub).
type notes struct {
	ix *index.Index
	// whole returns every note's entry: the copy taken at load, or the
	// catalog read once on first call.
	whole func() (map[string]index.Entry, error)
	eager bool // whole was read at load: entry answers from it
	mu    sync.Mutex
	cache map[string]noteEntry // notes read one by one, when lazy
}

type noteEntry struct {
	e  index.Entry
	ok bool
}

// newNotes makes the snapshot's view of ix's catalog: read whole now
// when ix holds it in memory already, else as needed.
func newNotes(ix *index.Index) (*notes, error) {
	n := &notes{ix: ix}
	if ix.Loaded() {
		all, err := ix.Entries()
		if err != nil {
			return nil, err
		}
		n.whole = func() (map[string]index.Entry, error) { return all, nil }
		n.eager = true
		return n, nil
	}
	n.whole = sync.OnceValues(ix.Entries)
	n.cache = map[string]noteEntry{}
	return n, nil
}

// all returns every note's entry; the caller must not change the map.
func (n *notes) all() (map[string]index.Entry, error) { return n.whole() }

// entry returns one note's entry; ok is false for a note the catalog
// does not hold, or whose record cannot be read.
func (n *notes) entry(p string) (index.Entry, bool) {
	if n.eager {
		all, _ := n.whole()
		e, ok := all[p]
		return e, ok
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if c, ok := n.cache[p]; ok {
		return c.e, c.ok
	}
	e, ok, err := n.ix.Entry(p)
	ok = ok && err == nil
	n.cache[p] = noteEntry{e, ok}
	return e, ok
}

// allOrNone returns every note's entry, or none when the catalog cannot
// be read (logged): for what only looks notes up, such as the links a
// compiled note may keep, the superseded notes' successors and the hubs.
func (n *notes) allOrNone(log *slog.Logger) map[string]index.Entry {
	all, err := n.all()
	if err != nil {
		log.Error("read catalog", "err", err)
	}
	return all
}
