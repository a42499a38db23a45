// Package source names the places Quire reads notes from: the vault, and
// the read-only git repositories and folders of config `sources:`. A
// source is an id, a root folder and the globs that pick its notes; one
// string, its key, names a note of any source everywhere a path is kept
// (passages, the catalog, filters, private entries).
//
// It is a leaf: walkers (the index, grep) and front ends take a Source
// and compare paths with Match, whatever kind of source it is.
package source

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Vault is the id of the vault itself, which every Quire has and no
// configured source may take.
const Vault = "vault"

// Kind is what a source reads: the vault, a git repository, a folder.
type Kind string

// The kinds of source.
const (
	KindVault  Kind = "vault"
	KindGit    Kind = "git"
	KindFolder Kind = "folder"
)

// DefaultInclude is what a source picks when its include is empty.
var DefaultInclude = []string{"*.md"}

// Source is one place notes are read from.
type Source struct {
	// ID is the stable name the catalog and vectors hang on: "vault", or
	// the key under sources.git or sources.folders.
	ID   string
	Kind Kind
	// Root is the folder holding the source's current files: the vault,
	// a git source's clone (path:) or the checkout Quire keeps of its
	// mirror (url:), a folder source's common parent of its paths.
	Root string
	// Paths are globs over Root-relative paths that hold the source's
	// files; none means all of Root.
	Paths []string
	// Include and Exclude are globs over Root-relative paths (a glob
	// without "/" is matched against the file name); empty Include is
	// DefaultInclude.
	Include, Exclude []string
}

// Match reports whether the Root-relative, slash-separated path rel is
// one of the source's files: under one of its paths, included and not
// excluded. Dot folders and dot files are never matched.
func (s Source) Match(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") || seg == "" {
			return false
		}
	}
	if len(s.Paths) > 0 && !slices.ContainsFunc(s.Paths, func(p string) bool { return Glob(p, rel) }) {
		return false
	}
	include := s.Include
	if len(include) == 0 {
		include = DefaultInclude
	}
	return anyGlob(include, rel) && !anyGlob(s.Exclude, rel)
}

// Prune reports whether a walk can leave out the Root-relative folder dir
// whole: a dot folder, excluded as a folder ("drafts/**"), or outside
// every path.
func (s Source) Prune(dir string) bool {
	if dir == "" || dir == "." {
		return false
	}
	if strings.HasPrefix(path.Base(dir), ".") {
		return true
	}
	for _, e := range s.Exclude {
		if folder, ok := strings.CutSuffix(e, "/**"); ok && anyGlob([]string{folder + "/"}, dir+"/") {
			return true
		}
	}
	if len(s.Paths) == 0 {
		return false
	}
	for _, p := range s.Paths {
		if mayHold(p, dir) {
			return false
		}
	}
	return true
}

// mayHold reports whether a file under dir may match the glob pattern:
// dir's segments match the pattern's leading ones, or a "**" comes first.
func mayHold(pattern, dir string) bool {
	ps, ds := strings.Split(pattern, "/"), strings.Split(dir, "/")
	for i, d := range ds {
		if i >= len(ps) {
			return false
		}
		if ps[i] == "**" {
			return true
		}
		if ok, _ := path.Match(ps[i], d); !ok {
			return false
		}
	}
	return true
}

// anyGlob reports whether one of patterns matches rel as .gitignore
// reads them unanchored: a pattern without "/" matches the file name, one
// with "/" the path from any folder down ("drafts/**" leaves out
// work/drafts/ too, whichever of several folders the source's root is
// the parent of).
func anyGlob(patterns []string, rel string) bool {
	for _, p := range patterns {
		if !strings.Contains(strings.TrimSuffix(p, "/"), "/") {
			if ok, _ := path.Match(strings.TrimSuffix(p, "/"), path.Base(strings.TrimSuffix(rel, "/"))); ok {
				return true
			}
			continue
		}
		for tail := rel; ; {
			if Glob(p, tail) {
				return true
			}
			i := strings.IndexByte(tail, '/')
			if i < 0 {
				break
			}
			tail = tail[i+1:]
		}
	}
	return false
}

// Glob matches a slash-separated path against a pattern of path.Match
// segments, where a "**" segment matches any number of folders (none
// included).
func Glob(pattern, rel string) bool {
	return globSegs(strings.Split(pattern, "/"), strings.Split(rel, "/"))
}

func globSegs(ps, rs []string) bool {
	for len(ps) > 0 {
		if ps[0] == "**" {
			for i := 0; i <= len(rs); i++ {
				if globSegs(ps[1:], rs[i:]) {
					return true
				}
			}
			return false
		}
		if len(rs) == 0 {
			return false
		}
		if ok, _ := path.Match(ps[0], rs[0]); !ok {
			return false
		}
		ps, rs = ps[1:], rs[1:]
	}
	return len(rs) == 0
}

// CheckGlob refuses a glob path.Match cannot read, or one that is empty,
// absolute or leaves its root.
func CheckGlob(g string) error {
	switch {
	case strings.TrimSpace(g) == "":
		return errors.New("empty pattern")
	case strings.HasPrefix(g, "/"):
		return fmt.Errorf("%q is absolute; write it relative to the source", g)
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == ".." {
			return fmt.Errorf("%q leaves the source (..)", g)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("%q: %w", g, err)
		}
	}
	return nil
}

// MaxIDBytes bounds an id: it prefixes every key of its source.
const MaxIDBytes = 64

// CheckID refuses an id that cannot prefix a key: ids are 2 to
// MaxIDBytes lowercase ASCII letters, digits, '-' and '_', starting with
// a letter or digit (one letter would read as a Windows drive in
// "c:notes/"), and not "vault".
func CheckID(id string) error {
	switch {
	case id == Vault:
		return fmt.Errorf("%q is the vault's own id", id)
	case len(id) < 2 || len(id) > MaxIDBytes:
		return fmt.Errorf("%q must be 2 to %d characters long", id, MaxIDBytes)
	case !validID(id):
		return fmt.Errorf("%q: use lowercase letters, digits, - and _ (starting with a letter or digit)", id)
	}
	return nil
}

func validID(id string) bool {
	if len(id) < 2 || len(id) > MaxIDBytes || id[0] == '-' || id[0] == '_' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Key is how Quire names the note at rel (slash-separated, inside the
// source id): rel itself in the vault, "id:rel" in any other source. A
// folder is named the same way, "ops:runbooks/", so a filter or a private
// entry takes a source like a folder.
func Key(id, rel string) string {
	if id == Vault || id == "" {
		return rel
	}
	return id + ":" + rel
}

// Split is Key reversed: the source id and the path inside it. A key
// whose first segment is not "id:" with a valid id is the vault's.
func Split(key string) (id, rel string) {
	i := strings.IndexByte(key, ':')
	if i < 0 || strings.Contains(key[:i], "/") || !validID(key[:i]) {
		return Vault, key
	}
	return key[:i], key[i+1:]
}

// Foreign reports whether the vault-relative path rel would read as
// another source's key: such a file (a name Obsidian refuses, made
// outside it) cannot be told apart from a source's note, so the vault
// leaves it out with a reason naming it.
func Foreign(rel string) bool {
	id, _ := Split(rel)
	return id != Vault
}
