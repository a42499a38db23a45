package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watch calls onChange with the vault-relative paths of notes created,
// written, renamed or removed, after debounce of quiet. It watches every
// folder the rules allow, including ones created later, and returns when
// ctx ends.
func Watch(ctx context.Context, root string, r Rules, debounce time.Duration, onChange func(paths []string)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	addTree := func(dir string) {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			if r.SkipDir(filepath.ToSlash(rel)) {
				return filepath.SkipDir
			}
			_ = w.Add(p)
			return nil
		})
	}
	addTree(root)

	pending := map[string]bool{}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				pending[""] = true // too many events: the caller rescans everything
				timer.Reset(debounce)
			}
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			rel, err := filepath.Rel(root, ev.Name)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					if !r.SkipDir(rel) {
						addTree(ev.Name)
						pending[rel+"/"] = true // a folder moved in: its notes are new
						timer.Reset(debounce)
					}
					continue
				}
			}
			// A folder removed or renamed (any name: "v1.2" too) takes
			// its notes with it.
			if r.Indexable(rel) || (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && !r.SkipDir(rel) && !IsFile(rel) {
				pending[rel] = true
				timer.Reset(debounce)
			}
		case <-timer.C:
			paths := make([]string, 0, len(pending))
			for p := range pending {
				paths = append(paths, p)
			}
			pending = map[string]bool{}
			onChange(paths)
		}
	}
}
