package compile

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/quire-app/quire/sidecar/ingest"
)

// The trust checks. Everything the model says passes through here before
// it is written: quotes must be in the source word for word, terms,
// concepts and entities must be named in it, links must resolve, addresses
// must come from the source, and all of it is scrubbed of HTML, control
// characters and vault syntax the model has no business adding.

// folded is a text reduced for comparison (lowercase, no accents, one
// space for any run of whitespace, typographic quotes and dashes made
// plain), with, for each byte of the reduced text, the offset in the
// original where the rune it came from starts — so a quote found in the
// reduced text can be written as the source has it.
type folded struct {
	s   string
	off []int // len(off) == len(s)+1; off[len(s)] is len(original)
	src string
}

// fold reduces s for comparison. NFKD splits accented letters into a base
// and combining marks, which are dropped; case is folded with ToLower.
func fold(s string) folded {
	var b strings.Builder
	off := make([]int, 0, len(s)+1)
	space := true // drop leading whitespace
	for i, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
				off = append(off, i)
				space = true
			}
			continue
		}
		space = false
		for _, d := range norm.NFKD.String(string(r)) {
			if unicode.Is(unicode.Mn, d) {
				continue
			}
			d = plainRune(unicode.ToLower(d))
			n := b.Len()
			b.WriteRune(d)
			for range b.Len() - n {
				off = append(off, i)
			}
		}
	}
	out := b.String()
	if strings.HasSuffix(out, " ") {
		out = out[:len(out)-1]
		off = off[:len(off)-1]
	}
	off = append(off, len(s))
	return folded{s: out, off: off, src: s}
}

// plainRune maps the characters a model swaps freely when it copies text
// (curly quotes, dashes, the ellipsis is left to NFKD) to one form.
func plainRune(r rune) rune {
	switch r {
	case '‘', '’', '‚', '‛', '′', '`', '´':
		return '\''
	case '“', '”', '„', '‟', '″', '«', '»':
		return '"'
	case '‐', '‑', '‒', '–', '—', '―', '−':
		return '-'
	}
	return r
}

// find returns the original text of the first place where the folded
// needle occurs in the folded haystack, whitespace collapsed to single
// spaces; ok is false when it does not occur. With words set the match
// must start and end at word boundaries, so a term "AI" is not found
// inside "said".
func (h folded) find(needle string, words bool) (string, bool) {
	n := fold(needle).s
	if n == "" {
		return "", false
	}
	from := 0
	for {
		i := strings.Index(h.s[from:], n)
		if i < 0 {
			return "", false
		}
		i += from
		j := i + len(n)
		if !words || boundary(h.s, i, j) {
			// off[j] is where the rune after the match starts in the
			// source; whitespace before it is trimmed by Fields.
			return strings.Join(strings.Fields(h.src[h.off[i]:h.off[j]]), " "), true
		}
		from = i + 1
	}
}

func boundary(s string, i, j int) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if isWord(r) {
			return false
		}
	}
	if j < len(s) {
		r, _ := utf8.DecodeRuneInString(s[j:])
		if isWord(r) {
			return false
		}
	}
	return true
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// drops counts what the checks removed, by kind.
type drops struct {
	n map[string]int
}

// The reasons, one per kind, as the note and the protocol print them.
var dropReason = map[string]string{
	"quote":   "not in the source",
	"term":    "not in the source",
	"concept": "not in the source",
	"entity":  "not in the source",
	"link":    "no such page",
	"url":     "not in the source",
	"image":   "not in the source",
}

func (d *drops) add(what string) {
	if d.n == nil {
		d.n = map[string]int{}
	}
	d.n[what]++
}

// list returns the counts in a fixed order of kinds, so the note's
// sentence reads the same on every run.
func (d *drops) list() []ingest.Dropped {
	out := make([]ingest.Dropped, 0, len(d.n))
	for _, w := range dropKinds {
		if d.n[w] > 0 {
			out = append(out, ingest.Dropped{What: w, Count: d.n[w], Reason: dropReason[w]})
		}
	}
	return out
}

var dropKinds = []string{"quote", "term", "concept", "entity", "link", "url", "image"}

// sentence renders the drops for the note: "dropped 2 quotes not in the
// source, 1 link to no such page".
func dropSentence(ds []ingest.Dropped) string {
	if len(ds) == 0 {
		return ""
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		what := d.What
		if d.Count != 1 {
			what += "s"
		}
		reason := d.Reason
		if d.What == "link" {
			reason = "to " + reason
		}
		parts[i] = itoa(d.Count) + " " + what + " " + reason
	}
	return "dropped " + strings.Join(parts, ", ")
}

// checker holds what model text is checked against.
type checker struct {
	text    folded   // the source's plain text
	raw     string   // the source's Markdown and URL, for addresses
	images  []string // image URLs and paths the source has
	resolve func(target string) (string, bool)
	drops   drops
}

// quote returns the source's own wording of a quote the model copied, or
// false when the source does not hold it.
func (c *checker) quote(q string) (string, bool) {
	q = strings.Trim(oneLine(scrub(q)), `"'“”‘’ `)
	if len([]rune(q)) < 8 {
		c.drops.add("quote")
		return "", false
	}
	got, ok := c.text.find(q, false)
	if !ok {
		c.drops.add("quote")
		return "", false
	}
	return got, true
}

// named returns the source's wording of a term, concept or entity name, or
// false when the source never names it.
func (c *checker) named(what, name string) (string, bool) {
	name = oneLine(scrub(name))
	if name == "" {
		return "", false
	}
	got, ok := c.text.find(name, true)
	if !ok {
		c.drops.add(what)
		return "", false
	}
	return got, true
}

var (
	// Elements whose content is code or hidden, removed whole.
	hiddenRe = []*regexp.Regexp{
		regexp.MustCompile(`(?is)<script\b.*?(</script\s*>|$)`),
		regexp.MustCompile(`(?is)<style\b.*?(</style\s*>|$)`),
		regexp.MustCompile(`(?is)<template\b.*?(</template\s*>|$)`),
	}
	htmlTagRe  = regexp.MustCompile(`(?s)<!--.*?-->|</?[A-Za-z][^<>]*>|<![A-Za-z][^<>]*>`)
	wikiRe     = regexp.MustCompile(`(!?)\[\[([^\[\]\n]*)\]\]`)
	mdImageRe  = regexp.MustCompile(`!\[([^\[\]\n]*)\]\(([^()\s]*)\)`)
	mdLinkRe   = regexp.MustCompile(`\[([^\[\]\n]*)\]\(((?:[^()\s]|\([^()\s]*\))*)\)`)
	bareURLRe  = regexp.MustCompile(`(?i)\b(?:https?|ftp|file|javascript|data|obsidian)://[^\s<>()\[\]"']+|\bwww\.[^\s<>()\[\]"']+`)
	hashtagRe  = regexp.MustCompile(`(^|[\s(])#([^\s#\d\\])`)
	urlTrimSet = ".,;:!?'\""
)

// scrub removes what model text must never carry into a note: HTML tags
// and comments (scripts and styles with their content), control and
// invisible formatting characters (bidi overrides included). A character
// reference such as &lt; stays: Markdown shows it as text. Newlines and
// tabs are kept for the caller to decide on.
func scrub(s string) string {
	s = strings.ToValidUTF8(s, "")
	for _, re := range hiddenRe {
		s = re.ReplaceAllString(s, "")
	}
	for {
		t := htmlTagRe.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r), r == '\u2028', r == '\u2029':
			return -1
		}
		return r
	}, s)
}

// prose makes one piece of model text safe to write as Markdown: scrubbed,
// links kept only when they resolve, addresses only when the source has
// them, and the syntax that would add structure, tags, embeds or hidden
// text escaped. Paragraph breaks are kept when multi is set; otherwise the
// text becomes one line.
func (c *checker) prose(s string, multi bool) string {
	s = scrub(s)
	var paras []string
	if multi {
		for _, p := range regexp.MustCompile(`\n\s*\n`).Split(s, -1) {
			if p = oneLine(p); p != "" {
				paras = append(paras, p)
			}
		}
	} else {
		paras = []string{oneLine(s)}
	}
	for i, p := range paras {
		paras[i] = escapeBlockStart(c.inline(p))
	}
	return strings.Join(paras, "\n\n")
}

// inline checks links and addresses in one line and escapes the rest.
// Kept links are put back after escaping, so they are the only [[ in it.
func (c *checker) inline(s string) string {
	var keep []string
	hold := func(link string) string {
		keep = append(keep, link)
		return "\x00" + itoa(len(keep)-1) + "\x00"
	}
	s = wikiRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := wikiRe.FindStringSubmatch(m)
		target, alias, _ := strings.Cut(sub[2], "|")
		target, _, _ = strings.Cut(target, "#")
		target = strings.TrimSpace(target)
		label := strings.TrimSpace(alias)
		if label == "" {
			label = target
		}
		if sub[1] == "!" {
			// An embed would pull another note's text into this one.
			c.drops.add("link")
			return label
		}
		if path, ok := c.resolve(target); ok {
			return hold(wikilink(path, label))
		}
		c.drops.add("link")
		return label
	})
	s = mdImageRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := mdImageRe.FindStringSubmatch(m)
		if c.hasImage(sub[2]) {
			return hold("![" + escapeText(oneLine(sub[1])) + "](" + sub[2] + ")")
		}
		c.drops.add("image")
		return ""
	})
	s = mdLinkRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := mdLinkRe.FindStringSubmatch(m)
		if c.hasURL(sub[2]) {
			return hold("[" + escapeText(sub[1]) + "](" + sub[2] + ")")
		}
		c.drops.add("url")
		return sub[1]
	})
	s = bareURLRe.ReplaceAllStringFunc(s, func(m string) string {
		u := strings.TrimRight(m, urlTrimSet)
		tail := m[len(u):]
		if c.hasURL(u) {
			return hold(u) + tail
		}
		c.drops.add("url")
		return tail
	})
	s = escapeText(s)
	for i, k := range keep {
		s = strings.Replace(s, "\x00"+itoa(i)+"\x00", k, 1)
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\x00", "")), " ")
}

// hasURL reports whether the source holds the address. Only http(s)
// addresses can qualify: a javascript: or obsidian: link is never kept.
func (c *checker) hasURL(u string) bool {
	l := strings.ToLower(u)
	if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
		return false
	}
	return strings.Contains(c.raw, u)
}

func (c *checker) hasImage(u string) bool {
	return slices.Contains(c.images, u)
}

// escapeText escapes, in one line of model text, the syntax that would
// turn it into markup: HTML left after scrubbing, code spans, backslashes,
// Obsidian links, embeds, comments, tags and highlights.
func escapeText(s string) string {
	var b strings.Builder
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '<':
			b.WriteString("&lt;")
		case c == '[' || c == ']':
			// Kept links are put back after escaping; any other bracket
			// could start a link the checks never saw.
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '%' && j+1 < len(s) && s[j+1] == '%':
			b.WriteString(`\%`)
		case c == '!' && j+1 < len(s) && s[j+1] == '[':
			b.WriteString(`\!`)
		case c == '`' || c == '\\' || c == '$':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return hashtagRe.ReplaceAllString(b.String(), `$1\#$2`)
}

// escapeBlockStart escapes a line that would open a block other than a
// paragraph: "# x" becomes "\# x", "1. x" becomes "1\. x".
func escapeBlockStart(line string) string {
	if line == "" {
		return line
	}
	switch line[0] {
	case '#', '>', '|', '=', '~', '-', '+', '*', '_':
		return `\` + line
	}
	i := 0
	for i < len(line) && i < 10 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') {
		return line[:i] + `\` + line[i:]
	}
	return line
}

// linkUnsafe are characters Obsidian does not allow in a link's target or
// label.
var linkUnsafe = strings.NewReplacer("[", "", "]", "", "|", "", "#", "", "^", "", "\n", " ")

// wikilink is the link we write: the full vault path (unambiguous when
// the user has a note of the same name) shown as label.
func wikilink(path, label string) string {
	target := strings.TrimSuffix(path, ".md")
	label = strings.TrimSpace(linkUnsafe.Replace(label))
	if label == "" || label == target {
		return "[[" + linkUnsafe.Replace(target) + "]]"
	}
	return "[[" + linkUnsafe.Replace(target) + "|" + label + "]]"
}

// oneLine collapses all whitespace to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func itoa(n int) string { return strconv.Itoa(n) }
