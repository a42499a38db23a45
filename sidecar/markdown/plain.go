package markdown

import (
	"regexp"
	"strings"
)

// Link is an Obsidian [[wikilink]]: [[Target#Heading|Display]].
type Link struct {
	Target  string // note name or path, without .md
	Heading string
	Display string
	Embed   bool // ![[...]]
}

var wikilinkRe = regexp.MustCompile(`(!?)\[\[([^\[\]\n]+?)\]\]`)

// Wikilinks returns the wikilinks in src in order.
func Wikilinks(src string) []Link {
	var out []Link
	for _, m := range wikilinkRe.FindAllStringSubmatch(src, -1) {
		out = append(out, parseLink(m[2], m[1] == "!"))
	}
	return out
}

func parseLink(inner string, embed bool) Link {
	l := Link{Embed: embed}
	target, display, hasDisplay := strings.Cut(inner, "|")
	target, l.Heading, _ = strings.Cut(target, "#")
	l.Target = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(target), ".md"))
	l.Heading = strings.TrimSpace(l.Heading)
	if hasDisplay {
		l.Display = strings.TrimSpace(display)
	} else if l.Target != "" {
		l.Display = l.Target
	} else {
		l.Display = l.Heading
	}
	return l
}

var (
	mdLinkRe   = regexp.MustCompile(`!?\[([^\]\n]*)\]\([^)\n]*\)`)
	autoLinkRe = regexp.MustCompile(`<https?://[^>\s]*>|https?://\S+`)
	markRe     = regexp.MustCompile("[*`]+|~~|==")
	tagRe      = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	commentRe  = regexp.MustCompile(`(?s)%%.*?(%%|$)|<!--.*?(-->|$)`)
	calloutRe  = regexp.MustCompile(`(?m)^((?:>\s*)+)\[![\w-]+\][+-]?`)
)

// linkLineRe is a line that leads with a link to a note: a list item,
// a task or a plain line whose first thing is a [[wikilink]] or a
// [text](target), bold or not.
var linkLineRe = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])?\s*(?:\[[ xX]\]\s*)?(?:\*\*|__)?(?:\[\[[^\]\n]+\]\]|\[[^\]\n]*\]\([^)\n]+\))`)

// LinkLines counts the lines of a note's body that lead with a link and
// all its lines of content (not blank, not a heading, a rule or a code
// fence's): a map of content is mostly the first.
func LinkLines(body string) (linkLines, lines int) {
	var fence Fence
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if fence.Line(t) || t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "---") {
			continue
		}
		lines++
		if linkLineRe.MatchString(l) {
			linkLines++
		}
	}
	return linkLines, lines
}

// plainLink is how Plain writes a wikilink: nothing for an embed, its
// display text, and its target too when that differs.
func plainLink(inner string, embed bool) string {
	l := parseLink(inner, embed)
	if l.Embed {
		return ""
	}
	if l.Display != l.Target && l.Target != "" {
		return l.Display + " (" + l.Target + ")"
	}
	return l.Display
}

// replaceWikilinks replaces every match of wikilinkRe in s, left to right,
// by f of its inside and whether it is an embed, as ReplaceAllStringFunc
// would, without the expression: its lazy loop made the replacement a
// tenth of reading a note for the index.
func replaceWikilinks(s string, f func(inner string, embed bool) string) string {
	var b strings.Builder
	last := 0 // the end of the last match
	for i := 0; ; {
		j := strings.Index(s[i:], "[[")
		if j < 0 {
			break
		}
		j += i
		k := j + 2
		for k < len(s) && s[k] != '[' && s[k] != ']' && s[k] != '\n' {
			k++
		}
		if k == j+2 || k+1 >= len(s) || s[k] != ']' || s[k+1] != ']' {
			i = j + 1
			continue
		}
		start, embed := j, j > last && s[j-1] == '!'
		if embed {
			start = j - 1
		}
		b.WriteString(s[last:start])
		b.WriteString(f(s[j+2:k], embed))
		last, i = k+2, k+2
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Plain returns src with Markdown markup removed: what the keyword index
// and the embedder read, and what extracted answers quote. Wikilinks
// become their display text followed by their target when it differs,
// links their text; embeds (![[pic.png]], icons such as
// ![[lucide-x.svg#icon]]), %%comments%%, HTML comments and tags, callout
// markers, URLs and emphasis marks go away. Byte ranges never refer to
// this text.
func Plain(src string) string {
	s := src
	// Each pass is gated on a cheap test: most passages need few of them.
	if strings.Contains(s, "%%") || strings.Contains(s, "<!--") {
		s = commentRe.ReplaceAllString(s, "")
	}
	if strings.Contains(s, "[!") {
		s = calloutRe.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "[[") {
		s = replaceWikilinks(s, plainLink)
	}
	if strings.Contains(s, "](") {
		s = mdLinkRe.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "http") {
		s = autoLinkRe.ReplaceAllString(s, "")
	}
	if strings.IndexByte(s, '<') >= 0 {
		s = tagRe.ReplaceAllString(s, "")
	}
	if strings.ContainsAny(s, "*`~=") {
		s = markRe.ReplaceAllString(s, "")
	}
	return strings.TrimSpace(s)
}
