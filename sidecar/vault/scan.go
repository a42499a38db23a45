package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// ErrNoVault is returned when the vault folder is missing or not a folder.
var ErrNoVault = errors.New("vault folder not found")

// File is a candidate note found by a scan, before it is read.
type File struct {
	Path    string // vault-relative, forward slashes
	Size    int64
	ModTime time.Time
}

// Skip names a file that was left out and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Scan walks root and returns the indexable notes sorted by path, plus the
// notes skipped for their size or for being unreadable. Folders and files
// excluded by the path rules are not reported: they are not notes.
func Scan(root string, r Rules) ([]File, []Skip, error) {
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("%w: %s", ErrNoVault, root)
	}
	var files []File
	var skips []Skip
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, relErr := filepath.Rel(root, p)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p == root {
				return err
			}
			skips = append(skips, Skip{Path: rel, Reason: "unreadable: " + errors.Unwrap(err).Error()})
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if r.SkipDir(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !r.Indexable(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			skips = append(skips, Skip{Path: rel, Reason: "unreadable: " + err.Error()})
			return nil
		}
		if !info.Mode().IsRegular() {
			// A symlink or device named .md: following links could leave the vault.
			skips = append(skips, Skip{Path: rel, Reason: "not a regular file"})
			return nil
		}
		if r.MaxBytes > 0 && info.Size() > r.MaxBytes {
			skips = append(skips, Skip{Path: rel, Reason: fmt.Sprintf("too large: %d bytes (cap %d)", info.Size(), r.MaxBytes)})
			return nil
		}
		files = append(files, File{Path: rel, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("scan %s: %w", root, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, skips, nil
}
