package mcp

import (
	"path"
	"strings"

	"github.com/quire-app/quire/sidecar/search"
)

// checkPath accepts a clean vault-relative note path and says in a sentence
// why any other is refused: the tools must never become a way to read files
// outside the vault, or inside its dot folders (.obsidian, .git, .quire).
func checkPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return "", argError("path is empty: give a note's vault-relative path, e.g. Folder/Note.md")
	case strings.ContainsRune(p, 0):
		return "", argError("path %q contains a NUL byte", p)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || hasVolume(p):
		return "", argError("path %q is absolute: give it relative to the vault, e.g. Folder/Note.md", p)
	case strings.ContainsRune(p, '\\'):
		return "", argError("path %q uses backslashes: separate folders with /", p)
	}
	for _, part := range strings.Split(p, "/") {
		switch {
		case part == "..":
			return "", argError("path %q leaves the vault (..): only notes inside the vault can be read", p)
		case part == "." || part == "":
			return "", argError("path %q is not clean (empty or . parts); did you mean %q?", p, path.Clean(p))
		case strings.HasPrefix(part, "."):
			return "", argError("path %q is in a dot folder or is a dot file, which is never indexed", p)
		}
	}
	if !strings.EqualFold(path.Ext(p), ".md") {
		return "", argError("path %q is not a Markdown note (.md)", p)
	}
	return p, nil
}

// hasVolume reports a Windows drive ("C:") whatever system this runs on:
// a client may run elsewhere than the server.
func hasVolume(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// filter narrows a tool to notes under a folder and/or with a tag, as the
// engine applies it before ranking's cut (engine.Query.Filter).
type filter struct {
	folder string // "" or "Dir/Sub/" with the trailing slash
	tag    string // "" or lower-case, without '#'
}

func newFilter(folder, tag string) (filter, error) {
	var f filter
	folder = strings.Trim(strings.TrimSpace(folder), "/")
	if folder != "" && folder != "." {
		if _, err := checkPath(folder + "/x.md"); err != nil {
			return f, argError("folder %q is not a vault-relative folder (no .., no absolute paths, no dot folders)", folder)
		}
		f.folder = folder + "/"
	}
	tag = strings.TrimPrefix(strings.TrimSpace(tag), "#")
	if tag != "" {
		if strings.ContainsAny(tag, " \t\n,#") {
			return f, argError("tag %q: give one tag, without spaces or commas", tag)
		}
		f.tag = strings.ToLower(tag)
	}
	return f, nil
}

// engine is the filter as the engine applies it, before it cuts to k.
func (f filter) engine() search.Filter {
	return search.Filter{Folder: strings.TrimSuffix(f.folder, "/"), Tag: f.tag}
}

func (f filter) String() string {
	var parts []string
	if f.folder != "" {
		parts = append(parts, "under "+f.folder)
	}
	if f.tag != "" {
		parts = append(parts, "tagged #"+f.tag)
	}
	return strings.Join(parts, " and ")
}

// snippet shortens text to about n bytes around the first query word it
// contains, so that the reader sees why the passage matched.
func snippet(text, query string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	if len(s) <= n {
		return s
	}
	lower := strings.ToLower(s)
	at := -1
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if len(w) < 3 {
			continue
		}
		if i := strings.Index(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	start := 0
	if at > n/3 {
		start = at - n/3
		if sp := strings.IndexByte(s[start:], ' '); sp >= 0 && sp < n/3 {
			start += sp + 1
		}
	}
	end := min(start+n, len(s))
	if end < len(s) {
		if sp := strings.LastIndexByte(s[start:end], ' '); sp > n/2 {
			end = start + sp
		}
	}
	for start > 0 && start < len(s) && !utf8RuneStart(s[start]) {
		start++
	}
	for end < len(s) && !utf8RuneStart(s[end]) {
		end--
	}
	out := s[start:end]
	if start > 0 {
		out = "… " + out
	}
	if end < len(s) {
		out += " …"
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
