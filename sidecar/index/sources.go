package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/bm25"
	"github.com/quire-app/quire/sidecar/git"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/vault"
)

// SourceState is what the catalog remembers of a source besides its
// notes: for a git source the revision indexed, which advances only after
// that revision's notes are written, so a crash redoes the batch.
type SourceState struct {
	Kind source.Kind `json:"kind"`
	// Revision is the commit whose notes the index holds.
	Revision string `json:"revision,omitempty"`
	// Rules names the include, exclude and size cap the revision was read
	// under: when they change, the revision is read whole again.
	Rules string `json:"rules,omitempty"`
	// Fetched is when the source's remote was last fetched; Synced when
	// the index was last brought up to the source.
	Fetched time.Time `json:"fetched,omitzero"`
	Synced  time.Time `json:"synced,omitzero"`
	// Error is the last sync's failure, cleared by a sync that succeeds:
	// the index keeps serving what it holds.
	Error   string       `json:"error,omitempty"`
	Skipped []vault.Skip `json:"skipped,omitempty"`
}

// SourceState returns what the catalog remembers of the source id.
func (ix *Index) SourceState(id string) (SourceState, error) { return ix.cat.sourceState(id) }

// SourceStats is what a source's sync did.
type SourceStats struct {
	Revision string `json:"revision,omitempty"`
	// Read counts the notes read and chunked, Removed those dropped,
	// Moved the renamed ones whose vectors moved with them.
	Read    int          `json:"read"`
	Removed int          `json:"removed"`
	Moved   int          `json:"moved"`
	Skipped []vault.Skip `json:"skipped,omitempty"`
	// Full says the revision was compared whole with the catalog (the
	// first sync, a force-push that dropped the indexed revision, changed
	// rules), not diffed from the indexed revision.
	Full bool `json:"full,omitempty"`
}

// rulesOf names what decides which files of a source are notes.
func (ix *Index) rulesOf(src source.Source) string {
	return fmt.Sprintf("paths=%q include=%q exclude=%q max=%d", src.Paths, src.Include, src.Exclude, ix.cfg.MaxFileBytes)
}

// sourceFile is one note of a source to read: its key, and where its
// content comes from (a blob, or a file under the source's root).
type sourceFile struct {
	file vault.File // Path is the key
	rel  string     // the path inside the source
	blob string     // git: the blob id, kept as the entry's hash
	from string     // a rename's old key, whose vectors may move
}

// SyncGit brings the notes of the git source src up to rev of repo:
// diffed from the indexed revision when the repository still holds it,
// else compared whole with the catalog. An unchanged revision does no
// work. The revision is recorded only once its notes are durable.
func (ix *Index) SyncGit(ctx context.Context, src source.Source, repo *git.Repo, rev string) (SourceStats, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	st := SourceStats{Revision: rev}
	prev, err := ix.cat.sourceState(src.ID)
	if err != nil {
		return st, err
	}
	rules := ix.rulesOf(src)
	if prev.Revision == rev && prev.Rules == rules {
		return st, nil
	}
	if err := ix.reconcile(); err != nil {
		return st, err
	}
	old, err := ix.cat.entriesOf(src.ID)
	if err != nil {
		return st, err
	}
	var todo []sourceFile
	var gone []string
	keep := func(rel, kind string) bool {
		if kind == "submodule" {
			if !src.Prune(rel) {
				st.Skipped = append(st.Skipped, vault.Skip{Path: source.Key(src.ID, rel), Reason: "a submodule: its repository is not read (add it as a source of its own)"})
			}
			return false
		}
		if !src.Match(rel) {
			return false
		}
		switch kind {
		case "link":
			st.Skipped = append(st.Skipped, vault.Skip{Path: source.Key(src.ID, rel), Reason: "not a regular file (a symbolic link)"})
			return false
		}
		return true
	}
	if prev.Revision != "" && prev.Rules == rules && repo.Has(ctx, prev.Revision) {
		changes, err := repo.Diff(ctx, prev.Revision, rev)
		if err != nil {
			return st, err
		}
		for _, c := range changes {
			if c.From != "" {
				if _, ok := old[source.Key(src.ID, c.From)]; ok {
					gone = append(gone, source.Key(src.ID, c.From))
				}
			}
			key := source.Key(src.ID, c.Path)
			if c.Op == 'D' || !keep(c.Path, c.Kind) {
				if _, ok := old[key]; ok && c.From == "" {
					gone = append(gone, key)
				}
				continue
			}
			f := sourceFile{file: vault.File{Path: key}, rel: c.Path, blob: c.Blob}
			if c.From != "" {
				f.from = source.Key(src.ID, c.From)
			}
			todo = append(todo, f)
		}
		// Skips of files the diff did not touch still stand.
		for _, sk := range prev.Skipped {
			if !touched(changes, src.ID, sk.Path) {
				st.Skipped = append(st.Skipped, sk)
			}
		}
	} else {
		st.Full = true
		files, err := repo.Files(ctx, rev)
		if err != nil {
			return st, err
		}
		present := map[string]bool{}
		byBlob := map[string]string{} // blob → a key that goes, for renames
		for _, f := range files {
			if !keep(f.Path, f.Kind) {
				continue
			}
			key := source.Key(src.ID, f.Path)
			present[key] = true
			if e, ok := old[key]; ok && e.Hash == f.Blob {
				continue
			}
			todo = append(todo, sourceFile{file: vault.File{Path: key, Size: f.Size}, rel: f.Path, blob: f.Blob})
		}
		for key, e := range old {
			if !present[key] {
				gone = append(gone, key)
				byBlob[e.Hash] = key
			}
		}
		for i, f := range todo {
			if _, known := old[f.file.Path]; !known {
				todo[i].from = byBlob[f.blob]
			}
		}
	}
	sort.Strings(gone)

	d := &dating{git: map[string]time.Time{}}
	if len(todo) > 0 {
		rels := make([]string, len(todo))
		for i, f := range todo {
			rels[i] = f.rel
		}
		dctx, cancel := context.WithTimeout(ctx, gitDatesTimeout)
		for rel, t := range repo.Dates(dctx, rev, rels) {
			d.git[source.Key(src.ID, rel)] = t
		}
		cancel()
	}
	read := func(ctx context.Context, files []sourceFile, fn func(sourceFile, []byte, error) error) error {
		blobs := make([]string, len(files))
		for i, f := range files {
			blobs[i] = f.blob
		}
		i := 0
		return repo.Read(ctx, blobs, ix.cfg.MaxFileBytes, func(_ string, data []byte, err error) error {
			f := files[i]
			i++
			if errors.Is(err, git.ErrTooLarge) {
				err = &vault.SkipError{Path: f.rel, Reason: fmt.Sprintf("too large: over %d bytes", ix.cfg.MaxFileBytes)}
			}
			return fn(f, data, err)
		})
	}
	if err := ix.applySource(ctx, &st, old, todo, gone, d, read); err != nil {
		return st, err
	}
	return st, ix.cat.setSourceState(src.ID, &SourceState{Kind: source.KindGit, Revision: rev, Rules: rules,
		Fetched: prev.Fetched, Synced: time.Now().UTC(), Skipped: st.Skipped})
}

// touched reports whether the diff changed the file at key.
func touched(changes []git.Change, id, key string) bool {
	for _, c := range changes {
		if source.Key(id, c.Path) == key || c.From != "" && source.Key(id, c.From) == key {
			return true
		}
	}
	return false
}

// applySource reads and chunks todo on all cores, writes the passages,
// moves the vectors of renamed notes whose passages did not change, and
// removes gone, in that order: a rename's old passages are still there to
// compare with when its new ones are written.
func (ix *Index) applySource(ctx context.Context, st *SourceStats, old map[string]Entry, todo []sourceFile, gone []string, d *dating,
	read func(context.Context, []sourceFile, func(sourceFile, []byte, error) error) error) error {
	var ist Stats
	w := newWriter(ix, &ist, len(todo))
	type job struct {
		f    sourceFile
		data []byte
		err  error
	}
	jobs := make(chan job, 64)
	// out carries each result with the old key of a renamed note.
	type renamed struct {
		r    result
		from string
	}
	out := onAllCores(jobs, func(j job) renamed {
		return renamed{ix.chunkSourceGuarded(j.f, j.data, j.err, entryOf(old, j.f.file.Path), d), j.f.from}
	})
	// readErr is written before jobs is closed, so before out is.
	var readErr error
	go func() {
		readErr = read(ctx, todo, func(f sourceFile, data []byte, err error) error {
			select {
			case jobs <- job{f, data, err}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		close(jobs)
	}()
	var werr error
	for o := range out {
		if werr != nil {
			continue
		}
		if o.from != "" && o.r.skip == nil && !o.r.touch {
			moved, err := ix.moveVectors(o.from, o.r.docs)
			if err != nil {
				werr = err
				continue
			}
			if moved {
				st.Moved++
			}
		}
		werr = w.add(o.r)
	}
	if werr != nil {
		return werr
	}
	if readErr != nil {
		return readErr
	}
	if err := ctx.Err(); err != nil {
		_ = w.flush()
		return err
	}
	for _, p := range gone {
		if err := w.remove(p); err != nil {
			return err
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	st.Read, st.Removed = ist.Changed, ist.Removed
	st.Skipped = append(st.Skipped, ist.Skipped...)
	return nil
}

// chunkSourceGuarded is chunkSource, where a panic on one note's text
// becomes a skip naming it, as prepareGuarded does for the vault's.
func (ix *Index) chunkSourceGuarded(f sourceFile, data []byte, err error, prev *Entry, d *dating) (r result) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("index: reading a note panicked", "path", f.file.Path, "panic", p, "stack", string(debug.Stack()))
			r = result{file: f.file, known: prev != nil, skip: &vault.Skip{Path: f.file.Path, Reason: fmt.Sprintf("left out: reading it failed inside Quire (%v); please report this note", p)}}
		}
	}()
	return ix.chunkSource(f, data, err, prev, d)
}

// chunkSource is chunk for a note of a source, named by its key: its
// title falls back on its file name inside the source, and a git note's
// hash is its blob id, which the next sync compares without reading it.
func (ix *Index) chunkSource(f sourceFile, data []byte, err error, prev *Entry, d *dating) result {
	var note *vault.Note
	if err == nil {
		note, err = vault.Parse(f.rel, data)
	}
	if note != nil {
		note.Path = f.file.Path
		if f.blob != "" {
			note.Hash = f.blob
		}
	}
	if f.file.ModTime.IsZero() {
		f.file.ModTime = time.Unix(0, 0)
	}
	if f.file.Size == 0 && data != nil {
		f.file.Size = int64(len(data))
	}
	return ix.chunk(f.file, note, err, prev, d)
}

// moveVectors gives the passages docs of a renamed note the vectors of
// the note's passages at its old key from, where a passage's text, title
// and heading path are unchanged (what was embedded), so a rename costs
// no embedding. It reports whether any moved.
func (ix *Index) moveVectors(from string, docs []bm25.Doc) (bool, error) {
	if ix.dense == nil || len(docs) == 0 {
		return false, nil
	}
	ids := make([]string, len(docs))
	for i := range docs {
		ids[i] = from + docs[i].ID[strings.LastIndexByte(docs[i].ID, '#'):]
	}
	olds, err := ix.BM25.Docs(context.Background(), ids)
	if err != nil {
		return false, err
	}
	moved := false
	for i, d := range docs {
		h, ok := olds[ids[i]]
		if !ok || h.Text != d.Text || h.Title != d.Title || !slices.Equal(h.Headings, d.Headings) {
			continue
		}
		// Keys are "<passage id>@<window>", windows counted from 0.
		for w := 0; ix.dense.store.Rename(ids[i]+"@"+strconv.Itoa(w), d.ID+"@"+strconv.Itoa(w)); w++ {
			moved = true
		}
	}
	return moved, nil
}

// SyncFolder brings the notes of the folder source src up to its files:
// a walk of its root compares (size, mtime) with the catalog, and only
// changed notes are read. A root that is missing while the index holds
// notes of the source leaves them as they are, with an error.
func (ix *Index) SyncFolder(ctx context.Context, src source.Source) (SourceStats, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var st SourceStats
	old, err := ix.cat.entriesOf(src.ID)
	if err != nil {
		return st, err
	}
	files, skips, err := walkSource(src, ix.cfg.MaxFileBytes)
	if err != nil || len(files) == 0 && len(old) > 0 {
		if err == nil {
			err = fmt.Errorf("%s holds no notes", src.Root)
		}
		return st, fmt.Errorf("%w: source %s: %v while the index holds %d of its notes; left unchanged", ErrVaultGone, src.ID, err, len(old))
	}
	if err := ix.reconcile(); err != nil {
		return st, err
	}
	st.Skipped = skips
	present := map[string]bool{}
	var todo []sourceFile
	for _, f := range files {
		key := source.Key(src.ID, f.Path)
		present[key] = true
		if e, ok := old[key]; ok && e.Size == f.Size && e.ModTime == f.ModTime.UnixNano() {
			continue
		}
		todo = append(todo, sourceFile{file: vault.File{Path: key, Size: f.Size, ModTime: f.ModTime}, rel: f.Path})
	}
	var gone []string
	for key := range old {
		if !present[key] {
			gone = append(gone, key)
		}
	}
	sort.Strings(gone)
	read := func(ctx context.Context, files []sourceFile, fn func(sourceFile, []byte, error) error) error {
		for _, f := range files {
			data, err := vault.ReadFile(src.Root, f.rel, ix.cfg.MaxFileBytes)
			switch {
			case errors.Is(err, vault.ErrTooLarge):
				err = &vault.SkipError{Path: f.rel, Reason: fmt.Sprintf("too large: over %d bytes", ix.cfg.MaxFileBytes)}
			case err != nil:
				err = &vault.SkipError{Path: f.rel, Reason: "unreadable: " + err.Error()}
			}
			if err := fn(f, data, err); err != nil {
				return err
			}
		}
		return nil
	}
	if err := ix.applySource(ctx, &st, old, todo, gone, &dating{}, read); err != nil {
		return st, err
	}
	return st, ix.cat.setSourceState(src.ID, &SourceState{Kind: source.KindFolder, Rules: ix.rulesOf(src), Synced: time.Now().UTC(), Skipped: st.Skipped})
}

// walkSource lists the notes under a folder source's root that it
// matches, without following links.
func walkSource(src source.Source, maxBytes int64) ([]vault.File, []vault.Skip, error) {
	st, err := os.Stat(src.Root)
	if err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("%w: %s", vault.ErrNoVault, src.Root)
	}
	var files []vault.File
	var skips []vault.Skip
	err = filepath.WalkDir(src.Root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src.Root, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p == src.Root {
				return err
			}
			skips = append(skips, vault.Skip{Path: source.Key(src.ID, rel), Reason: "unreadable: " + err.Error()})
			return nil
		}
		if d.IsDir() {
			if p != src.Root && src.Prune(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !src.Match(rel) {
			return nil
		}
		info, err := d.Info()
		switch {
		case err != nil:
			skips = append(skips, vault.Skip{Path: source.Key(src.ID, rel), Reason: "unreadable: " + err.Error()})
		case !info.Mode().IsRegular():
			skips = append(skips, vault.Skip{Path: source.Key(src.ID, rel), Reason: "not a regular file"})
		case maxBytes > 0 && info.Size() > maxBytes:
			skips = append(skips, vault.Skip{Path: source.Key(src.ID, rel), Reason: fmt.Sprintf("too large: %d bytes (cap %d)", info.Size(), maxBytes)})
		default:
			files = append(files, vault.File{Path: rel, Size: info.Size(), ModTime: info.ModTime()})
		}
		return nil
	})
	return files, skips, err
}

// DropSource removes every note of the source id and what the catalog
// remembers of it: a source taken out of the config, or whose id was
// renamed (a new id is a new source, indexed anew).
func (ix *Index) DropSource(ctx context.Context, id string) (int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var st Stats
	w := newWriter(ix, &st, 0)
	old, err := ix.cat.entriesOf(id)
	if err != nil {
		return 0, err
	}
	keys := make([]string, 0, len(old))
	for k := range old {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := w.remove(k); err != nil {
			return st.Removed, err
		}
	}
	if err := w.flush(); err != nil {
		return st.Removed, err
	}
	return st.Removed, ix.cat.setSourceState(id, nil)
}

// Sources lists the ids of the sources whose notes or state the catalog
// holds, the vault aside.
func (ix *Index) Sources() ([]string, error) {
	ids, err := ix.cat.sourceIDs()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	err = ix.cat.read(func(entries map[string]Entry) {
		for k := range entries {
			if id, _ := source.Split(k); id != source.Vault && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(ids)
	return ids, nil
}

// RecordSourceError keeps why a source's sync failed beside what the
// catalog remembers of it, which stays as it was.
func (ix *Index) RecordSourceError(id string, kind source.Kind, msg string) error {
	st, err := ix.cat.sourceState(id)
	if err != nil {
		return err
	}
	st.Kind, st.Error = kind, msg
	return ix.cat.setSourceState(id, &st)
}

// RecordFetch notes when the source's mirror was fetched.
func (ix *Index) RecordFetch(id string, at time.Time) error {
	st, err := ix.cat.sourceState(id)
	if err != nil {
		return err
	}
	st.Fetched = at
	return ix.cat.setSourceState(id, &st)
}
