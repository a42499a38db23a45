package vault

import (
	"bytes"
	"errors"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// ErrNoFrontmatter is DecodeFrontmatter's error for a note without a
// closed frontmatter block.
var ErrNoFrontmatter = errors.New("no frontmatter")

var bom = []byte("\xef\xbb\xbf")

// SplitFrontmatter cuts a note's frontmatter from its body as Obsidian
// reads it: after an optional byte order mark, a first line of --- (YAML)
// or +++ (TOML) up to a line holding the same delimiter, each line may end
// in spaces, tabs and a CR. front is the text between the two delimiter
// lines, body what follows the closing one, delim the delimiter; without a
// closed block ok is false and body is b without its byte order mark. Every reader of a note's
// frontmatter (the index, ingest, saved answers) cuts it here.
func SplitFrontmatter(b []byte) (front, body []byte, delim string, ok bool) {
	start := 0
	if bytes.HasPrefix(b, bom) {
		start = len(bom)
	}
	end, ok := frontmatterEnd(b[start:])
	if !ok {
		return nil, b[start:], "", false
	}
	block := b[start : start+end]
	open := bytes.IndexByte(block, '\n') + 1
	closing := bytes.LastIndexByte(bytes.TrimSuffix(block, []byte("\n")), '\n') + 1
	delim = "---"
	if hasLine(block, "+++") {
		delim = "+++"
	}
	return block[open:closing], b[start+end:], delim, true
}

// DecodeFrontmatter decodes b's frontmatter (YAML, or TOML between +++
// lines) into v and returns the body after it; a note without one gets
// ErrNoFrontmatter and the body as SplitFrontmatter cuts it.
func DecodeFrontmatter(b []byte, v any) (body []byte, err error) {
	front, body, delim, ok := SplitFrontmatter(b)
	if !ok {
		return body, ErrNoFrontmatter
	}
	if delim == "+++" {
		return body, toml.Unmarshal(front, v)
	}
	// yaml.v3, so that nested maps decode as map[string]any.
	return body, yaml.Unmarshal(front, v)
}
