package vault

import (
	"bytes"
	"regexp"
	"strings"
)

// Supersession is what a note says about being replaced: by frontmatter
// (superseded_by: "[[Other]]", status: superseded), by a line that opens
// with SUPERSEDED (SUPERSEDED by [[Other]]), or by a callout
// (> [!superseded] See [[Other]]). A STALE mark is not one: staleness
// says a note was not looked at lately, not that it stopped being true.
type Supersession struct {
	Superseded bool
	// By is the link target of the note that replaces it ("Other"), ""
	// when the note does not say.
	By string
}

// supersededLine is a body line that marks the note superseded: the word
// in capitals at the start of a line (after a quote or bold marker), or a
// [!superseded] callout; its first wikilink is the successor.
var supersededLine = regexp.MustCompile(`(?m)^[ \t>]*(?:\*\*|__)?(?:SUPERSEDED\b|\[![Ss]uperseded\])([^\n]*)`)

var wikilink = regexp.MustCompile(`\[\[([^\]\n]+)\]\]`)

// linkTarget is a wikilink's note: "[[Plan v2#Goals|the plan]]" → "Plan v2".
func linkTarget(s string) string {
	s = strings.TrimSpace(s)
	if m := wikilink.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	if i := strings.IndexAny(s, "|#^"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ".md"))
}

// supersession reads a note's frontmatter values and body.
func supersession(meta map[string]any, body []byte) Supersession {
	var s Supersession
	if v := stringList(first(meta, "superseded_by", "superseded-by", "supersededBy"), false); len(v) > 0 {
		s.Superseded, s.By = true, linkTarget(v[0])
	}
	if st, ok := meta["status"].(string); ok && strings.EqualFold(strings.TrimSpace(st), "superseded") {
		s.Superseded = true
	}
	// The expression runs only where its words are: a line-anchored
	// search over every body took a sixth of reading the notes.
	if !bytes.Contains(body, []byte("SUPERSEDED")) && !bytes.Contains(body, []byte("uperseded]")) {
		return s
	}
	if m := supersededLine.FindSubmatch(body); m != nil {
		s.Superseded = true
		if s.By == "" {
			if l := wikilink.FindSubmatch(m[1]); l != nil {
				s.By = linkTarget(string(l[0]))
			}
		}
	}
	return s
}
