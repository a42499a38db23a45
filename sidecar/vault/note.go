package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/markdown"
)

// Note is one Markdown note as read from the vault.
type Note struct {
	Path string // vault-relative, forward slashes
	// Raw is the whole file. Byte ranges everywhere in Quire are offsets
	// into Raw, so a citation points at the bytes the user wrote.
	Raw []byte
	// BodyStart is the offset in Raw where the body begins, after the
	// frontmatter (and a byte-order mark).
	BodyStart int
	Title     string
	Aliases   []string
	Tags      []string
	Lang      string
	Hash      string // sha256 of Raw, hex
	// Private is the private mark, `private: true` in the frontmatter:
	// Quire puts it on what it writes from private notes (answers,
	// sources), and the note is private wherever it lies (see Private).
	Private bool
	// Warning is set when the note was kept despite a problem (broken
	// frontmatter): the body is indexed, the metadata is not.
	Warning string
	// Supersession says whether another note replaces this one.
	Supersession Supersession
	// Date is the day the note is about or was written, from its
	// frontmatter `date` (or `created`); Updated is when it was last
	// changed, from `updated` (or `modified`). Zero when not given.
	Date, Updated time.Time
}

// Body returns the Markdown after the frontmatter.
func (n *Note) Body() []byte { return n.Raw[n.BodyStart:] }

// SkipError says why a file is not indexed as a note. The run goes on.
type SkipError struct {
	Path   string
	Reason string
}

func (e *SkipError) Error() string { return e.Path + ": " + e.Reason }

// HashBytes is the content hash used by the catalog.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Read loads the note at the vault-relative path rel. Files that are not
// notes (over maxBytes, binary, not UTF-8, unreadable) return a *SkipError.
func Read(root, rel string, maxBytes int64) (*Note, error) {
	raw, err := ReadFile(root, rel, maxBytes)
	switch {
	case errors.Is(err, ErrTooLarge):
		return nil, &SkipError{Path: rel, Reason: fmt.Sprintf("too large: over %d bytes", maxBytes)}
	case err != nil:
		return nil, &SkipError{Path: rel, Reason: "unreadable: " + unwrapPath(err)}
	}
	return Parse(rel, raw)
}

// Errors CheckText returns.
var (
	ErrBinary  = errors.New("binary content")
	ErrNotUTF8 = errors.New("not UTF-8 text")
)

// CheckText is the indexer's test of a file's bytes: a NUL in the first
// 8,000 bytes makes it binary (ErrBinary), and it must be valid UTF-8
// (ErrNotUTF8). Quire checks every note it writes with it too.
func CheckText(raw []byte) error {
	probe := raw
	if len(probe) > 8000 {
		probe = probe[:8000]
	}
	if bytes.IndexByte(probe, 0) >= 0 {
		return ErrBinary
	}
	if !utf8.Valid(raw) {
		return ErrNotUTF8
	}
	return nil
}

// CleanText makes s fit to write into a note: valid UTF-8 (bad bytes
// dropped), line ends as \n, and no control character but tab and newline.
// A NUL would make the indexer take the note for binary; an escape or a
// form feed shows as garbage or hides text in a terminal.
func CleanText(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	if utf8.ValidString(s) && strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
}

// isControl is a C0 or C1 control character, or DEL, other than tab and
// newline.
func isControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0
}

// Parse builds a Note from a file's bytes.
func Parse(rel string, raw []byte) (*Note, error) {
	if err := CheckText(raw); err != nil {
		return nil, &SkipError{Path: rel, Reason: err.Error()}
	}
	n := &Note{Path: rel, Raw: raw, Hash: HashBytes(raw)}
	var meta map[string]any
	body, err := DecodeFrontmatter(raw, &meta)
	n.BodyStart = len(raw) - len(body)
	switch {
	case errors.Is(err, ErrNoFrontmatter):
	case err != nil:
		meta = nil
		n.Warning = "frontmatter ignored: " + firstLine(err.Error())
	default:
		n.applyMeta(meta)
	}
	n.Supersession = supersession(meta, n.Body())
	if n.Title == "" {
		n.Title = firstH1(n.Body())
	}
	if n.Title == "" {
		n.Title = strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	}
	return n, nil
}

// frontmatterEnd finds the end of a frontmatter block that opens on the
// first line with --- (YAML) or +++ (TOML), as Obsidian reads it. It returns
// the offset just past the closing delimiter's line.
func frontmatterEnd(b []byte) (int, bool) {
	var delim string
	switch {
	case hasLine(b, "---"):
		delim = "---"
	case hasLine(b, "+++"):
		delim = "+++"
	default:
		return 0, false
	}
	off := bytes.IndexByte(b, '\n') + 1
	for off < len(b) {
		nl := bytes.IndexByte(b[off:], '\n')
		line := b[off:]
		next := len(b)
		if nl >= 0 {
			line = b[off : off+nl]
			next = off + nl + 1
		}
		if strings.TrimRight(string(line), " \t\r") == delim {
			return next, true
		}
		off = next
	}
	return 0, false
}

func hasLine(b []byte, delim string) bool {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return false
	}
	return strings.TrimRight(string(b[:nl]), " \t\r") == delim
}

func (n *Note) applyMeta(meta map[string]any) {
	if s, ok := meta["title"].(string); ok {
		n.Title = strings.TrimSpace(s)
	}
	n.Aliases = stringList(first(meta, "aliases", "alias"), false)
	n.Tags = stringList(first(meta, "tags", "tag"), true)
	for i, t := range n.Tags {
		n.Tags[i] = strings.TrimPrefix(t, "#")
	}
	n.Private, _ = meta["private"].(bool)
	if s, ok := first(meta, "lang", "language").(string); ok {
		n.Lang = strings.ToLower(strings.TrimSpace(s))
	}
	n.Date = metaTime(first(meta, "date", "created"))
	n.Updated = metaTime(first(meta, "updated", "modified"))
}

// metaTime reads a frontmatter date: a YAML timestamp, or a string in
// one of the layouts people and Obsidian's plugins write. Anything else
// is the zero time.
func metaTime(v any) time.Time {
	switch v := v.(type) {
	case time.Time:
		return v
	case string:
		v = strings.TrimSpace(v)
		for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02", "2006/01/02", "2006.01.02"} {
			if t, err := time.ParseInLocation(layout, v, time.Local); err == nil {
				return t
			}
		}
	}
	return time.Time{}
}

func first(meta map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := meta[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

// stringList reads a frontmatter value that may be a string or a list.
// Tags written as one string are split on commas and spaces, as Obsidian does.
func stringList(v any, splitSpaces bool) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch v := v.(type) {
	case string:
		if splitSpaces {
			for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
				add(f)
			}
		} else {
			add(v)
		}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				add(s)
			} else if e != nil {
				add(fmt.Sprint(e))
			}
		}
	}
	return out
}

// firstH1 returns the text of the first ATX level-1 heading outside fenced
// code, or "".
func firstH1(body []byte) string {
	var fence markdown.Fence
	for _, line := range strings.Split(string(body), "\n") {
		if fence.Line(line) {
			continue
		}
		if strings.HasPrefix(line, "# ") {
			return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[2:]), "#"))
		}
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
