package extract

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/quire-app/quire/sidecar/ingest/fetch"
)

// MaxImages is how many images a source's Markdown keeps; the rest are
// left out (and counted), so a page of 20,000 images does not become a
// note that loads 20,000 files.
const MaxImages = 50

// Removed counts what dropLocal left out of a Doc's Markdown. The
// original, with everything, stays in raw/.
type Removed struct {
	LocalImages int // images on a private or local address
	LocalLinks  int // links and bare addresses to a private or local address
	OverImages  int // images past MaxImages
}

// Any reports whether anything was left out.
func (r Removed) Any() bool { return r.LocalImages+r.LocalLinks+r.OverImages > 0 }

// Markdown forms of an image, a link, an autolink, an HTML image and a
// bare address. Link text may hold an image (a linked picture).
var (
	mdImageRe  = regexp.MustCompile(`!\[((?:\\.|[^\]\\])*)\]\(\s*<?([^\s)>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
	mdLinkRe   = regexp.MustCompile(`\[((?:\\.|!\[(?:\\.|[^\]\\])*\]\([^)]*\)|[^\]\\])*)\]\(\s*<?([^\s)>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
	autoRe     = regexp.MustCompile(`<((?i:https?)://[^>\s]+)>`)
	htmlImgRe  = regexp.MustCompile(`(?is)<img\b[^>]*>`)
	srcRe      = regexp.MustCompile(`(?is)\bsrc\s*=\s*["']?([^"'\s>]+)`)
	blankRunRe = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)+`)
	bareRe     = regexp.MustCompile(`(?i)\bhttps?://[^\s<>()\[\]"']+`)
	// destRe is any inline destination, whatever the brackets before it
	// hold: link text and image descriptions may nest brackets to any
	// depth, which the patterns above (and any regular expression) cannot
	// follow.
	destRe = regexp.MustCompile(`\]\(\s*<?([^\s)>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
)

// local reports whether ref names a host the fetch guard refuses
// without DNS (a private, loopback or link-local address, localhost, a
// name only a local network resolves: see fetch.LocalHost).
func local(ref string) bool {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return false
	}
	// Markdown may escape characters inside a destination, and the HTML
	// converter percent-encodes an IPv6 literal's brackets.
	ref = strings.NewReplacer(`\`, "", "%5B", "[", "%5b", "[", "%5D", "]", "%5d", "]").Replace(ref)
	u, err := url.Parse(ref)
	if err != nil || u.Host == "" {
		return false
	}
	return fetch.LocalHost(u) != ""
}

// dropLocal removes from d's Markdown every image and link to a host the
// fetch guard would refuse (a link keeps its text), and every image past
// MaxImages; d.Images loses the same. A Markdown viewer that loads remote
// images would otherwise make the user's machine request them.
func (d *Doc) dropLocal() {
	md := d.Markdown
	images := 0
	keepImage := func(ref string) bool {
		if local(ref) {
			d.Removed.LocalImages++
			return false
		}
		if images >= MaxImages {
			d.Removed.OverImages++
			return false
		}
		images++
		return true
	}
	md = htmlImgRe.ReplaceAllStringFunc(md, func(tag string) string {
		src := ""
		if m := srcRe.FindStringSubmatch(tag); m != nil {
			src = m[1]
		}
		if keepImage(src) {
			return tag
		}
		return ""
	})
	md = mdImageRe.ReplaceAllStringFunc(md, func(m string) string {
		if keepImage(mdImageRe.FindStringSubmatch(m)[2]) {
			return m
		}
		return ""
	})
	md = replaceLinks(md, func(text, dest string) (string, bool) {
		if local(dest) {
			d.Removed.LocalLinks++
			return text, false
		}
		return "", true
	})
	md = autoRe.ReplaceAllStringFunc(md, func(m string) string {
		if local(m[1 : len(m)-1]) {
			d.Removed.LocalLinks++
			return ""
		}
		return m
	})
	// What is left behind brackets the patterns could not follow loses
	// its destination; the bracketed text stays, as text (an image with
	// it would load in Obsidian). The bracket is escaped: it reads the
	// same, and "![[a note]](…)" cannot become an embed of a vault note.
	md = destRe.ReplaceAllStringFunc(md, func(m string) string {
		if local(destRe.FindStringSubmatch(m)[1]) {
			d.Removed.LocalLinks++
			return `\]`
		}
		return m
	})
	md = bareRe.ReplaceAllStringFunc(md, func(m string) string {
		if local(m) {
			d.Removed.LocalLinks++
			return ""
		}
		return m
	})
	if md == d.Markdown {
		return
	}
	// Paragraphs that held only a dropped image leave blank lines.
	md = blankRunRe.ReplaceAllString(md, "\n\n")
	// Text stays: the plain text carries no image, and the checks look
	// for addresses in the Markdown.
	d.Markdown = md
	kept := d.Images[:0]
	for _, im := range d.Images {
		if im.URL == "" || strings.Contains(md, im.URL) {
			kept = append(kept, im)
		}
	}
	d.Images = kept
}

// replaceLinks calls f on every Markdown link that is not an image;
// when f says no, the link becomes the text f returns.
func replaceLinks(md string, f func(text, dest string) (string, bool)) string {
	var b strings.Builder
	last := 0
	for _, m := range mdLinkRe.FindAllStringSubmatchIndex(md, -1) {
		if m[0] > 0 && md[m[0]-1] == '!' {
			continue // an image, handled before
		}
		text, ok := f(md[m[2]:m[3]], md[m[4]:m[5]])
		if ok {
			continue
		}
		b.WriteString(md[last:m[0]])
		b.WriteString(text)
		last = m[1]
	}
	if last == 0 {
		return md
	}
	b.WriteString(md[last:])
	return b.String()
}
