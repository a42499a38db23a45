package worker

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/ingest/raw"
	"github.com/quire-app/quire/sidecar/vault"
)

// InboxFolder and DoneFolder are, under the generated folder, where the
// user drops files and where they go once ingested.
const (
	InboxFolder = "Inbox"
	DoneFolder  = "Inbox/done"
)

// seenFile is what the last look at an inbox file found.
type seenFile struct {
	size    int64
	mtime   time.Time
	handled bool // queued, or known to the queue already
}

func (w *Worker) inboxDir() string {
	return filepath.Join(w.opts.Vault, filepath.FromSlash(w.folder()), InboxFolder)
}

// scanInbox queues the inbox files that have stopped changing. A file is
// never deleted: once ingested it moves to Inbox/done/; one that failed
// stays where it is, and is tried again when it changes.
func (w *Worker) scanInbox() {
	if err := compile.Adopt(w.opts.Vault, w.folder()); err != nil {
		// Never move the user's files: a folder of theirs is not Quire's
		// inbox. Said once per folder.
		w.mu.Lock()
		said := w.foreign == w.folder()
		w.foreign = w.folder()
		w.mu.Unlock()
		if !said {
			w.opts.Log.Warn("inbox not read", "err", err)
		}
		return
	}
	dir := w.inboxDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.opts.Log.Warn("inbox", "dir", dir, "err", err)
		}
		return
	}
	present := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(name, ".") || !fileTypes[strings.ToLower(filepath.Ext(name))] {
			continue
		}
		full := filepath.Join(dir, name)
		present[full] = true
		st, err := e.Info()
		if err != nil {
			continue
		}
		w.mu.Lock()
		prev, seen := w.inbox[full]
		w.mu.Unlock()
		cur := seenFile{size: st.Size(), mtime: st.ModTime()}
		if !seen || prev.size != cur.size || !prev.mtime.Equal(cur.mtime) {
			w.remember(full, cur) // new or still growing: look again next time
			continue
		}
		if prev.handled || cur.size == 0 {
			continue
		}
		cur.handled = w.queueDropped(full, cur)
		w.remember(full, cur)
	}
	w.mu.Lock()
	for p := range w.inbox {
		if !present[p] {
			delete(w.inbox, p)
		}
	}
	w.mu.Unlock()
}

func (w *Worker) remember(p string, f seenFile) {
	w.mu.Lock()
	w.inbox[p] = f
	w.mu.Unlock()
}

// queueDropped adds a dropped file and reports whether the queue now knows
// it. A file whose path an earlier item had is handled by what that item
// became: one that failed is tried again if the file changed since; one
// done means the user dropped a new file under a name used before (the old
// one moved to done/), so the new one is renamed beside it to be queued
// under a path of its own.
func (w *Worker) queueDropped(full string, f seenFile) bool {
	_, _, err := w.add(full, false, false)
	var dup *ingest.DuplicateError
	switch {
	case err == nil:
		return true
	case errors.As(err, &dup) && dup.By == "path":
		old := dup.Existing
		switch {
		case old.State == ingest.StateFailed && f.mtime.After(old.Updated):
			if rerr := w.opts.Queue.Remove(old.ID); rerr == nil {
				_, _, err = w.add(full, false, false)
				return err == nil
			}
		case old.State == ingest.StateDone:
			if _, rerr := moveFree(full, filepath.Dir(full)); rerr != nil {
				w.opts.Log.Warn("inbox: rename", "file", full, "err", rerr)
			}
			return true // the renamed file is a new one to the next look
		}
		return true
	default:
		w.opts.Log.Warn("inbox: cannot queue", "file", full, "err", err)
		return true
	}
}

// inboxFinished moves an ingested inbox file to Inbox/done/.
func (w *Worker) inboxFinished(source string) {
	if filepath.Dir(source) != w.inboxDir() {
		return
	}
	done := filepath.Join(w.inboxDir(), filepath.FromSlash(strings.TrimPrefix(DoneFolder, InboxFolder+"/")))
	if err := os.MkdirAll(done, 0o755); err != nil {
		w.opts.Log.Warn("inbox: done folder", "err", err)
		return
	}
	if _, err := moveFree(source, done); err != nil {
		w.opts.Log.Warn("inbox: move to done", "file", source, "err", err)
	}
}

// moveFree moves file into dir under its name, or name-2, name-3… when
// that is taken (a move into the same folder always renames), never
// replacing a file. It returns the new path.
func moveFree(file, dir string) (string, error) {
	stem, ext := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), filepath.Ext(file)
	for i := 1; i < 10000; i++ {
		name := stem + ext
		if i > 1 {
			name = stem + "-" + strconv.Itoa(i) + ext
		}
		dst := filepath.Join(dir, name)
		if dst == file {
			continue
		}
		// A hard link fails when the name is taken, where a rename would
		// replace the file there.
		err := os.Link(file, dst)
		if err == nil {
			return dst, os.Remove(file)
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if _, serr := os.Lstat(dst); serr == nil {
			continue
		}
		return dst, os.Rename(file, dst)
	}
	return "", errors.New("no free name in " + dir)
}

// saveOnce saves data in folder like raw.Save, unless a file saved there
// under the same name (or a numbered form of it) already holds exactly
// these bytes: an item interrupted after its original was saved reuses it
// when it runs again.
func saveOnce(vaultDir, folder, name string, data []byte) (string, error) {
	dir := filepath.Join(vaultDir, filepath.FromSlash(folder))
	safe := raw.SafeName(name)
	ext := path.Ext(safe)
	stem := strings.TrimSuffix(safe, ext)
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			n := e.Name()
			if !e.Type().IsRegular() || !strings.HasPrefix(n, stem) || !strings.HasSuffix(strings.ToLower(n), strings.ToLower(ext)) {
				continue
			}
			if st, err := e.Info(); err != nil || st.Size() != int64(len(data)) {
				continue
			}
			if b, err := vault.ReadFile(vaultDir, path.Join(folder, n), int64(len(data))); err == nil && bytes.Equal(b, data) {
				return path.Join(folder, n), nil
			}
		}
	}
	return raw.Save(vaultDir, folder, name, data)
}

// savedOriginal returns the vault-relative path of the original a source
// note names in its frontmatter (raw, original), or "" when it names none
// or the file is gone.
func (w *Worker) savedOriginal(note string) string {
	if note == "" || !filepath.IsLocal(filepath.FromSlash(note)) {
		return ""
	}
	b, err := vault.ReadFile(w.opts.Vault, note, w.opts.MaxBytes)
	if err != nil {
		return ""
	}
	var meta map[string]any
	if _, err := vault.DecodeFrontmatter(b, &meta); err != nil {
		return ""
	}
	// The note is the user's to edit: the original it names is read only
	// from raw/, where Quire keeps originals, never from a note of theirs.
	rawDir := path.Join(w.folder(), "raw") + "/"
	for _, k := range []string{"raw", "original"} {
		s, _ := meta[k].(string)
		s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "[["), "]]")
		if s == "" || !filepath.IsLocal(filepath.FromSlash(s)) || path.Clean(s) != s || !strings.HasPrefix(s, rawDir) {
			continue
		}
		if _, err := os.Stat(filepath.Join(w.opts.Vault, filepath.FromSlash(s))); err == nil {
			return s
		}
	}
	return ""
}
