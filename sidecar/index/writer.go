package index

import (
	"fmt"

	"github.com/quire-app/quire/sidecar/bm25"
)

// writer batches results into the keyword index, then the catalog, and
// reports progress as it goes (thinner).
type writer struct {
	ix      *Index
	st      *Stats
	total   int
	done    int
	thin    *thinner
	paths   []string
	docs    []bm25.Doc
	changes map[string]*Entry
}

const (
	batchNotes = 200
	batchDocs  = 2000
	// batchBytes bounds the passage text of one keyword-index batch:
	// Bleve analyses a whole batch in memory, so one huge note (4,096
	// passages of a 5 MB file) goes in several.
	batchBytes = 1 << 20
)

func newWriter(ix *Index, st *Stats, total int) *writer {
	w := &writer{ix: ix, st: st, total: total, thin: newThinner(total), changes: map[string]*Entry{}}
	if total > 0 {
		ix.progress(Progress{Phase: PhaseIndex, Done: 0, Total: total})
	}
	return w
}

func (w *writer) remove(path string) error {
	w.paths = append(w.paths, path)
	w.changes[path] = nil
	w.st.Removed++
	return w.maybeFlush()
}

func (w *writer) add(r result) error {
	w.done++
	switch {
	case r.skip != nil:
		w.st.Skipped = append(w.st.Skipped, *r.skip)
		// A note that became unreadable leaves the index.
		if r.known {
			w.paths = append(w.paths, r.file.Path)
			w.changes[r.file.Path] = nil
		}
	case r.touch:
		w.changes[r.file.Path] = r.entry
	default:
		if r.known {
			w.paths = append(w.paths, r.file.Path)
		}
		w.docs = append(w.docs, r.docs...)
		w.changes[r.file.Path] = r.entry
		w.st.Changed++
	}
	if w.thin.due(w.done, w.total) {
		w.ix.progress(Progress{Phase: PhaseIndex, Done: w.done, Total: w.total})
	}
	return w.maybeFlush()
}

func (w *writer) maybeFlush() error {
	if len(w.changes) >= batchNotes || len(w.docs) >= batchDocs {
		return w.flush()
	}
	return nil
}

// flush writes the keyword index first and the catalog second: a crash in
// between leaves notes the catalog does not know, which the next run redoes.
func (w *writer) flush() error {
	if len(w.paths) > 0 || len(w.docs) > 0 {
		// Vectors go first: a crash before the keyword index is replaced
		// leaves only vectors whose passage text is the same in both.
		if err := w.ix.dropVectors(w.paths, w.docs); err != nil {
			return fmt.Errorf("drop vectors: %w", err)
		}
		if err := w.replace(); err != nil {
			return err
		}
	}
	if err := w.ix.cat.apply(w.changes); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	w.paths, w.docs, w.changes = w.paths[:0], w.docs[:0], map[string]*Entry{}
	return nil
}

// replace writes the pending deletes and passages in batches of at most
// batchBytes of text. A crash between two batches leaves a note with only
// part of its passages and the catalog not yet written: the next run's
// reconcile sees the count differ and redoes the note.
func (w *writer) replace() error {
	paths, docs := w.paths, w.docs
	for {
		n, size := 0, 0
		for n < len(docs) {
			size += len(docs[n].Text) + len(docs[n].HeadingText)
			if n > 0 && size > batchBytes {
				break
			}
			n++
		}
		if err := w.ix.BM25.Replace(paths, docs[:n]); err != nil {
			return err
		}
		paths, docs = nil, docs[n:]
		if len(docs) == 0 {
			return nil
		}
	}
}
