package vault

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Private is the set of notes that never leave this machine: the folders
// and single notes of config `private:`, and notes that carry the private
// mark (see Note.Private). The zero value holds nothing.
type Private struct {
	rules []privateRule
	// entries are the configured entries as written, for messages.
	entries []string
	marked  map[string]bool
}

// privateRule is one folder or note a configured entry holds.
type privateRule struct {
	key   string // folded; a folder's ends in "/"
	entry int    // index into Private.entries
}

// holds reports whether the folded path key lies under the rule.
func (r privateRule) holds(key string) bool {
	if strings.HasSuffix(r.key, "/") {
		return strings.HasPrefix(key, r.key)
	}
	return key == r.key
}

// ParsePrivate reads `private:` entries. An entry is a vault-relative
// folder ("Journal/", "Journal", "./Journal/", "Journal/*", "Journal/**")
// or a single note or PDF ("Journal/2026-11-30.md"); spaces around it, a leading
// "./" or "/", backslashes and a glob tail are forgiven, since each was
// typed meaning the folder. An entry naming no folder, leaving the vault,
// or holding any other pattern is refused with an error naming it: a
// private entry that protects nothing must not pass for one that does.
// The Private returned holds the entries that could be read, even beside
// an error.
func ParsePrivate(entries []string) (Private, error) {
	var p Private
	var first error
	for _, raw := range entries {
		clean, err := cleanPrivate(raw)
		if err != nil {
			if first == nil {
				first = fmt.Errorf("%q %w", raw, err)
			}
			continue
		}
		i := len(p.entries)
		p.entries = append(p.entries, raw)
		key := foldPath(clean)
		if IsFile(key) {
			p.rules = append(p.rules, privateRule{key, i})
			continue
		}
		// "Journal/2026-11-30" may name the note as well as a folder;
		// holding both errs on the side of privacy.
		p.rules = append(p.rules, privateRule{key + "/", i}, privateRule{key + ".md", i})
	}
	return p, first
}

// cleanPrivate normalises one entry to a clean vault-relative path
// without a trailing slash.
func cleanPrivate(raw string) (string, error) {
	s := strings.TrimSpace(strings.ReplaceAll(raw, "\\", "/"))
	for {
		t := strings.TrimPrefix(strings.TrimPrefix(s, "./"), "/")
		t = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(t, "/**"), "/*"), "/")
		if t == s {
			break
		}
		s = t
	}
	switch {
	case s == "" || s == "." || s == "*" || s == "**":
		return "", errors.New("names no folder (write the folder, e.g. Journal/)")
	case strings.ContainsAny(s, "*?[]{}"):
		return "", errors.New("holds a pattern; private takes folders and notes only")
	case len(s) > 1 && s[1] == ':':
		return "", errors.New("is not relative to the vault")
	}
	for _, seg := range strings.Split(s, "/") {
		switch {
		case seg == "":
			return "", errors.New("has an empty folder name (//)")
		case seg == ".":
			return "", errors.New(`has a "." folder name`)
		case seg == "..":
			return "", errors.New("leaves the vault (..)")
		}
	}
	return path.Clean(s), nil
}

// foldPath is the key a path is compared by: NFC (macOS stores names in
// NFD, a config typed elsewhere is NFC), and case folded as the file
// systems that fold do (macOS, Windows): holding more notes than a
// case-sensitive file system would is the safe side. A Caser is not safe
// for concurrent use, so each call makes its own.
func foldPath(p string) string { return cases.Fold().String(norm.NFC.String(p)) }

// WithMarked returns p that also holds the notes at the vault-relative
// paths marked (notes whose frontmatter carries the private mark).
func (p Private) WithMarked(marked []string) Private {
	if len(marked) == 0 {
		return p
	}
	m := make(map[string]bool, len(p.marked)+len(marked))
	for k := range p.marked {
		m[k] = true
	}
	for _, rel := range marked {
		m[rel] = true
	}
	p.marked = m
	return p
}

// Empty reports whether p holds no note at all.
func (p Private) Empty() bool { return len(p.entries) == 0 && len(p.marked) == 0 }

// Holds reports whether the vault-relative, slash-separated path rel is
// private: in a private folder, a private note, or marked.
func (p Private) Holds(rel string) bool {
	if p.marked[rel] {
		return true
	}
	if len(p.rules) == 0 {
		return false
	}
	key := foldPath(strings.TrimPrefix(rel, "/"))
	for _, r := range p.rules {
		if r.holds(key) {
			return true
		}
	}
	return false
}

// Unmatched returns the configured entries, as written, that hold none of
// the vault-relative paths: a typo there protects nothing.
func (p Private) Unmatched(paths []string) []string {
	used := make([]bool, len(p.entries))
	for _, rel := range paths {
		key := foldPath(rel)
		for _, r := range p.rules {
			used[r.entry] = used[r.entry] || r.holds(key)
		}
	}
	var out []string
	for i, e := range p.entries {
		if !used[i] {
			out = append(out, e)
		}
	}
	return out
}

// HoldsFile reports whether the file at the absolute path file lies in
// the vault at vaultDir and is private there. Both are compared as real
// paths (links resolved, then NFC and case folded as Holds compares), so
// a file named through a link to the vault, or to one of its folders, is
// seen where it really lies.
func (p Private) HoldsFile(vaultDir, file string) bool {
	if p.Empty() || vaultDir == "" {
		return false
	}
	root, err := filepath.EvalSymlinks(vaultDir)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		// Gone or unreadable: judge the path as given.
		real = filepath.Clean(file)
	}
	rootKey := foldPath(filepath.ToSlash(root))
	key := foldPath(filepath.ToSlash(real))
	rel, ok := strings.CutPrefix(key, strings.TrimSuffix(rootKey, "/")+"/")
	if !ok {
		return false
	}
	// rel is folded; marked notes are kept in the catalog's spelling.
	if exact, ok := strings.CutPrefix(filepath.ToSlash(real), strings.TrimSuffix(filepath.ToSlash(root), "/")+"/"); ok && p.marked[exact] {
		return true
	}
	return p.Holds(rel)
}
