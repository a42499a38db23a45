package index

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// Progress phases reported to a [ProgressFunc].
const (
	PhaseIndex = "index" // Run: notes (re-)read and chunked
	PhaseEmbed = "embed" // Embed: passages given vectors
)

// ProgressFunc receives how far a phase has come: notes for PhaseIndex,
// passages for PhaseEmbed.
type ProgressFunc func(phase string, done, total int)

// ProgressWriter returns a writer to set as [Index.Progress] that calls f
// for every progress line Run and Embed print ("indexing: 1,200/9,876
// notes", "vectors 300/4,000 chunks"), so that a server can push
// structured progress without a second reporting path through the writer.
// Other lines are ignored.
func ProgressWriter(f ProgressFunc) io.Writer {
	return &progressWriter{f: f}
}

type progressWriter struct {
	mu  sync.Mutex
	f   ProgressFunc
	buf []byte
}

func (w *progressWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		if phase, done, total, ok := parseProgress(line); ok {
			w.f(phase, done, total)
		}
	}
	return len(p), nil
}

// parseProgress reads the lines writer.add and Embed print.
func parseProgress(line string) (phase string, done, total int, ok bool) {
	var rest string
	switch {
	case strings.HasPrefix(line, "indexing: ") && strings.HasSuffix(line, " notes"):
		phase, rest = PhaseIndex, strings.TrimSuffix(strings.TrimPrefix(line, "indexing: "), " notes")
	case strings.HasPrefix(line, "vectors ") && strings.HasSuffix(line, " chunks"):
		phase, rest = PhaseEmbed, strings.TrimSuffix(strings.TrimPrefix(line, "vectors "), " chunks")
	default:
		return "", 0, 0, false
	}
	a, b, found := strings.Cut(rest, "/")
	if !found {
		return "", 0, 0, false
	}
	var err1, err2 error
	done, err1 = strconv.Atoi(strings.ReplaceAll(a, ",", ""))
	total, err2 = strconv.Atoi(strings.ReplaceAll(b, ",", ""))
	return phase, done, total, err1 == nil && err2 == nil
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
		return err
	}
	changes := make(map[string]*Entry, len(entries))
	for p, e := range entries {
		e.Size, e.ModTime, e.Hash = -1, 0, ""
		changes[p] = &e
	}
	if err := ix.cat.apply(changes); err != nil {
		return fmt.Errorf("invalidate catalog: %w", err)
	}
	return nil
}
