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
	tagRe      = regexp.MustCompile(`</?[a-zA-Z][^>\n]*>`)
)

// Plain returns src with Markdown markup removed, for indexing and
// display of short strings (headings): wikilinks become their display
// text followed by their target when it differs, links their text, and
// URLs, emphasis marks and HTML tags go away. Byte ranges never refer to
// this text; it is only what the keyword index sees.
func Plain(src string) string {
	s := src
	// Each pass is gated on a cheap test: most passages need few of them.
	if strings.Contains(s, "[[") {
		s = wikilinkRe.ReplaceAllStringFunc(s, func(m string) string {
			sub := wikilinkRe.FindStringSubmatch(m)
			l := parseLink(sub[2], sub[1] == "!")
			if l.Embed {
				return l.Display
			}
			if l.Display != l.Target && l.Target != "" {
				return l.Display + " (" + l.Target + ")"
			}
			return l.Display
		})
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
