package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
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
	return walk(root, root, r)
}

// ScanDir is Scan of one folder of the vault, dir (vault-relative, slash
// separated): its notes at any depth, with paths relative to root. A
// folder that is gone, excluded by the rules or reached through a
// symbolic link holds no notes.
func ScanDir(root, dir string, r Rules) ([]File, []Skip, error) {
	if !within(root, dir, r) {
		return nil, nil, nil
	}
	return walk(root, filepath.Join(root, filepath.FromSlash(dir)), r)
}

// StatFile is Scan of one vault-relative path: the note, if rel names an
// indexable one; or why it is skipped; or neither, when it is gone or no
// note.
func StatFile(root, rel string, r Rules) (*File, *Skip) {
	if !r.Indexable(rel) || !within(root, path.Dir(rel), r) {
		return nil, nil
	}
	info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	f, skip := fileOf(rel, info, err, r)
	return f, skip
}

// within reports whether the vault-relative folder dir is one a walk of
// root enters: no folder on the way is excluded or a symbolic link.
func within(root, dir string, r Rules) bool {
	if dir == "." || dir == "" {
		return true
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		rel := strings.Join(parts[:i+1], "/")
		if r.SkipDir(rel) {
			return false
		}
		st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// fileOf is the note found at rel, or why it is skipped.
func fileOf(rel string, info fs.FileInfo, err error, r Rules) (*File, *Skip) {
	if err != nil {
		return nil, &Skip{Path: rel, Reason: "unreadable: " + err.Error()}
	}
	if !info.Mode().IsRegular() {
		// A symlink or device named .md: following links could leave the vault.
		return nil, &Skip{Path: rel, Reason: "not a regular file"}
	}
	limit := r.MaxBytes
	if IsPDF(rel) {
		limit = MaxPDFBytes
	}
	if limit > 0 && info.Size() > limit {
		return nil, &Skip{Path: rel, Reason: fmt.Sprintf("too large: %d bytes (cap %d)", info.Size(), limit)}
	}
	return &File{Path: rel, Size: info.Size(), ModTime: info.ModTime()}, nil
}

// walk lists the notes under from, a folder of root or root itself.
func walk(root, from string, r Rules) ([]File, []Skip, error) {
	var files []File
	var skips []Skip
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		rel, relErr := filepath.Rel(root, p)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p == from {
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
		f, skip := fileOf(rel, info, err, r)
		if skip != nil {
			skips = append(skips, *skip)
		} else {
			files = append(files, *f)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("scan %s: %w", root, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, skips, nil
}
