package ask

import (
	"regexp"
	"strings"
)

// Links in a model's answer. A page that was ingested can carry a prompt
// injection that makes the model write an image or a link to the
// attacker's address: rendered, it tells that server the question was
// asked, and anything put in its address. So an answer keeps only its
// citations, vault links ([[…]], relative paths) and the addresses that
// the cited passages hold themselves; a remote image is dropped even then,
// since showing it fetches it.

var (
	// imageRe is a Markdown image, ![alt](target "title"); the target may
	// be in <…>.
	imageRe = regexp.MustCompile(`!\[([^\]\n]*)\]\(\s*(<[^>\n]*>|[^)\s]*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)`)
	// mdLinkRe is a Markdown link, [text](target "title").
	mdLinkRe = regexp.MustCompile(`\[([^\]\n]*)\]\(\s*(<[^>\n]*>|[^)\s]*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)`)
	// refImageRe is a reference image, ![alt][ref] or ![alt][].
	refImageRe = regexp.MustCompile(`!\[([^\]\n]*)\]\[[^\]\n]*\]`)
	// refDefRe is a link reference definition line, [ref]: target.
	refDefRe = regexp.MustCompile(`(?m)^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+).*$`)
	// autolinkRe is <scheme:…>; bareURLRe an address in plain text, with
	// or without a scheme (www.…).
	autolinkRe = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^<>\s]*)>`)
	bareURLRe  = regexp.MustCompile(`(?i)\b(?:[a-z][a-z0-9+.-]{1,31}://|www\.)[^\s<>()\[\]"']+`)
	// htmlTagRe is an HTML tag (<img …>, <a …>, </a>); Obsidian renders
	// them, and an answer needs none.
	htmlTagRe = regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>]*)?/?>`)
)

// remote reports whether a link target leaves the vault: it has a scheme
// (https:, data:, file:…) or starts with // or www.
func remote(target string) bool {
	t := strings.ToLower(strings.TrimSpace(strings.Trim(target, "<>")))
	if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "www.") || strings.HasPrefix(t, `\\`) {
		return true
	}
	if i := strings.IndexByte(t, ':'); i > 0 {
		// "C:" is a drive, not a scheme; a scheme is letters first.
		return i > 1 && !strings.ContainsAny(t[:i], "/?#")
	}
	return false
}

// keepLinks returns text with the links and images it may not keep
// removed (a link keeps its words), and how many went. An address is kept
// only when a cited passage holds it (in holds); a remote image never.
func keepLinks(text string, holds func(addr string) bool) (string, int) {
	removed := 0
	allowed := func(target string) bool {
		t := strings.Trim(strings.TrimSpace(target), "<>")
		if !remote(t) {
			return true // a vault path or a heading
		}
		return holds(t)
	}
	text = imageRe.ReplaceAllStringFunc(text, func(m string) string {
		if remote(imageRe.FindStringSubmatch(m)[2]) {
			removed++
			return ""
		}
		return m
	})
	text = refImageRe.ReplaceAllStringFunc(text, func(string) string {
		// Its target is defined elsewhere; an answer has no need of one.
		removed++
		return ""
	})
	text = refDefRe.ReplaceAllStringFunc(text, func(m string) string {
		if allowed(refDefRe.FindStringSubmatch(m)[1]) {
			return m
		}
		removed++
		return ""
	})
	text = mdLinkRe.ReplaceAllStringFunc(text, func(m string) string {
		sub := mdLinkRe.FindStringSubmatch(m)
		if allowed(sub[2]) {
			return m
		}
		removed++
		return sub[1]
	})
	text = autolinkRe.ReplaceAllStringFunc(text, func(m string) string {
		if allowed(m) {
			return m
		}
		removed++
		return ""
	})
	text = htmlTagRe.ReplaceAllStringFunc(text, func(string) string {
		removed++
		return ""
	})
	// Bare addresses last, outside the links kept above.
	kept := mdLinkRe.FindAllStringIndex(text, -1)
	kept = append(kept, autolinkRe.FindAllStringIndex(text, -1)...)
	var b strings.Builder
	last := 0
	for _, loc := range bareURLRe.FindAllStringIndex(text, -1) {
		if inside(loc, kept) || holds(strings.TrimRight(text[loc[0]:loc[1]], ".,;:!?")) {
			continue
		}
		b.WriteString(text[last:loc[0]])
		last = loc[1]
		removed++
	}
	b.WriteString(text[last:])
	return b.String(), removed
}

// inside reports whether loc lies within one of spans.
func inside(loc []int, spans [][]int) bool {
	for _, s := range spans {
		if loc[0] >= s[0] && loc[1] <= s[1] {
			return true
		}
	}
	return false
}
