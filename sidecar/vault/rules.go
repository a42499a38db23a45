// Package vault owns the user's notes as files: which paths are indexed,
// walking the vault, reading a note safely and parsing its frontmatter.
// It never writes to the vault.
package vault

import (
	"path"
	"regexp"
	"strings"
)

// Rules decide which vault-relative paths are notes.
type Rules struct {
	// Ignore holds vault-relative prefixes (e.g. "Templates/") to skip.
	Ignore []string
	// Patterns are regular expressions over vault-relative paths to skip
	// (Obsidian's "Excluded files" written as /regex/).
	Patterns []*regexp.Regexp
	// MaxBytes is the size cap; larger notes are skipped with a warning.
	MaxBytes int64
}

// NewRules combines configured ignore prefixes with the vault's own
// Obsidian exclusions.
func NewRules(root string, ignore []string, maxBytes int64) Rules {
	prefixes, patterns := ObsidianExcludes(root)
	return Rules{Ignore: append(append([]string{}, ignore...), prefixes...), Patterns: patterns, MaxBytes: maxBytes}
}

// Indexable reports whether the vault-relative, slash-separated path rel
// names a file that should be indexed: a note (a .md file) or a PDF,
// outside dot folders, not an Excalidraw drawing, and under no ignored
// prefix.
func (r Rules) Indexable(rel string) bool {
	if !IsFile(rel) {
		return false
	}
	if strings.HasSuffix(strings.ToLower(rel), ".excalidraw.md") {
		return false
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return !r.ignored(rel)
}

// IsPDF reports whether the vault-relative path rel names a PDF: the
// index reads the text of the PDFs in the vault beside the notes.
func IsPDF(rel string) bool { return strings.EqualFold(path.Ext(rel), ".pdf") }

// IsFile reports whether rel names a file the index may read, by its
// extension alone: a note or a PDF. Any other path a watch reports is a
// folder, or nothing the index holds.
func IsFile(rel string) bool { return strings.EqualFold(path.Ext(rel), ".md") || IsPDF(rel) }

// MaxPDFBytes is the size cap for a PDF in the vault, above the notes'
// cap: a paper or a manual is often larger than a note ever is, and only
// its first pages are read (see index).
const MaxPDFBytes = 64 << 20

// SkipDir reports whether a whole folder can be pruned from a walk.
func (r Rules) SkipDir(rel string) bool {
	if rel == "." || rel == "" {
		return false
	}
	if strings.HasPrefix(path.Base(rel), ".") {
		return true
	}
	return r.ignored(rel + "/")
}

func (r Rules) ignored(rel string) bool {
	for _, re := range r.Patterns {
		if re.MatchString(rel) {
			return true
		}
	}
	for _, p := range r.Ignore {
		p = strings.TrimPrefix(p, "/")
		if p != "" && strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

// Reserved reports whether a file name's stem (what precedes its first
// dot) is a device name Windows reserves in every folder: CON, PRN, AUX,
// NUL, COM0-9, LPT0-9 (with ¹²³), CONIN$, CONOUT$; case and trailing
// spaces ignored. A note named so cannot be opened there.
func Reserved(stem string) bool {
	base := stem
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) >= 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		d := base[3:]
		return d >= "0" && d <= "9" && len(d) == 1 || d == "¹" || d == "²" || d == "³"
	}
	return false
}
