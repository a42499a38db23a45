package markdown

import (
	"bytes"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Params size the passages. Tokens are counted by the Chunker's tokenizer.
type Params struct {
	MaxTokens     int // a passage's target size
	OverlapTokens int // shared by consecutive windows cut inside a line
	MinTokens     int // sections smaller than this merge with neighbours
}

// Chunk is one passage of a note.
type Chunk struct {
	// Start and End are byte offsets into the note's raw file: the
	// passage's text is exactly raw[Start:End].
	Start, End int
	// Headings is the heading path in force where the passage starts
	// (H1, H2, ...), without the note title, markup removed: a passage
	// that starts with headings is named by all of them.
	Headings []string
	// Contains lists the other headings that start inside the passage.
	Contains []string
	Tokens   int
}

// Breadcrumb is how a passage's place reads as one line, "Title › H1 ›
// H2": what a person is shown and what the embedder reads before the
// passage. It is for display only: the heading path travels as a list,
// since a heading or a title may itself hold " › ".
func Breadcrumb(title string, headings []string) string {
	return strings.Join(append([]string{title}, headings...), " › ")
}

// Chunker cuts notes into chunks.
type Chunker struct {
	P   Params
	Tok Tokenizer
}

// MaxPassages caps the passages of one note. A note cut into more (100k
// headings, say) is chunked again with every small neighbour merged, and
// what still lies past the cap is left out; the indexer says so.
const MaxPassages = 4096

// Version names how passages are cut, for the index fingerprint: a new
// version rebuilds passages and vectors. md3: a window no longer ends
// where it starts before an indented code block, nor overlaps back from
// a line's start (notes cut into thousands of empty passages).
const Version = "md3"

// New returns a Chunker with the cl100k tokenizer.
func New(p Params) *Chunker { return &Chunker{P: p, Tok: CL100K()} }

// section is a heading and the blocks under it up to the next heading.
type section struct {
	path       []string
	start, end int
	blocks     []block
	tokens     int
	offs       []int // token offsets of body[start:end], for a section not merged
	headOnly   bool  // nothing but headings
}

// Split cuts raw[bodyStart:] into chunks whose offsets index raw. Its
// cost is linear in the note's size; it returns at most PassageBound.
func (c *Chunker) Split(raw []byte, bodyStart int) []Chunk {
	out, _ := c.SplitCapped(raw, bodyStart)
	return out
}

// SplitCapped is Split, and reports whether passages past the bound were
// left out.
func (c *Chunker) SplitCapped(raw []byte, bodyStart int) ([]Chunk, bool) {
	body := raw[bodyStart:]
	if len(body) > estimateAbove {
		// See estimateAbove: the same cut, with cheaper counts.
		est := *c
		est.Tok = estimate{}
		c = &est
	}
	secs := c.sections(body)
	groups := c.group(secs, body, false)
	many := len(secs) > MaxPassages/2
	var out []Chunk
	if !many || nonBlank(body, groups) <= MaxPassages {
		// (With more groups holding text than MaxPassages, the windows
		// would only be cut to be dropped: go straight to merging.)
		out = c.chunks(body, groups)
	}
	if many && (out == nil || len(out) > MaxPassages) {
		// Many small sections: merging neighbours helps; one long
		// section would only be cut the same way again.
		out = c.chunks(body, c.group(secs, body, true))
	}
	out = sound(body, out)
	capped := false
	if b := PassageBound(body, c.P); len(out) > b {
		out, capped = out[:b], true
	}
	for i := range out {
		out[i].Start += bodyStart
		out[i].End += bodyStart
	}
	return out, capped
}

// sound drops what no index should hold, should a cut ever produce it: an
// empty passage, or one that ends where or before the one before it ends
// (a window inside the previous one). Each passage left adds text.
func sound(body []byte, chunks []Chunk) []Chunk {
	out := chunks[:0]
	for _, ch := range chunks {
		if a, b := trimSpace(body, ch.Start, ch.End); a >= b {
			continue
		}
		if n := len(out); n > 0 && (ch.Start <= out[n-1].Start || ch.End <= out[n-1].End) {
			continue
		}
		out = append(out, ch)
	}
	return out
}

// PassageBound is the most passages a body of this size can make, and the
// most Split returns: one per section (a heading line, and the text before
// the first), plus one window per MaxTokens−2·OverlapTokens bytes, the
// least a window cut inside a section advances (a token is at least a
// byte), capped at MaxPassages. Real notes make far fewer; the index
// reports a note whose count comes near it.
func PassageBound(body []byte, p Params) int {
	step := max(p.MaxTokens-2*p.OverlapTokens, 1)
	return min(MaxPassages, 1+headingLines(body)+len(body)/step)
}

// headingLines counts the lines that look like ATX headings, code or not.
func headingLines(body []byte) int {
	n := 0
	for pos := 0; pos < len(body); {
		end := bytes.IndexByte(body[pos:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += pos + 1
		}
		if atxLevel(body[pos:end]) > 0 {
			n++
		}
		pos = end
	}
	return n
}

// nonBlank counts the groups with more than white space: each gives at
// least one passage.
func nonBlank(body []byte, groups []section) int {
	n := 0
	for _, g := range groups {
		if a, b := trimSpace(body, g.start, g.end); a < b {
			n++
		}
	}
	return n
}

func (c *Chunker) chunks(body []byte, groups []section) []Chunk {
	var out []Chunk
	for _, g := range groups {
		out = append(out, c.window(body, g)...)
		if len(out) > MaxPassages {
			break
		}
	}
	return out
}

// wholeBytes is the size up to which a list or quote stays one block:
// about four passages of text.
func (c *Chunker) wholeBytes() int { return 16 * max(c.P.MaxTokens, 16) }

func (c *Chunker) sections(body []byte) []section {
	blocks := parseBlocks(body, c.wholeBytes())
	secs := make([]section, 0, sectionCount(blocks))
	var path []string
	var levels []int
	// A section's blocks are a stretch of blocks, and so are the groups
	// of neighbouring sections: sharing the one array keeps 100k headings
	// from copying blocks around.
	for i := range blocks {
		b := &blocks[i]
		if b.kind == kindHeading {
			for len(levels) > 0 && levels[len(levels)-1] >= b.level {
				levels, path = levels[:len(levels)-1], path[:len(path)-1]
			}
			levels, path = append(levels, b.level), append(path, b.heading)
			b.path = append([]string(nil), path...)
			secs = append(secs, section{path: b.path, start: b.start, end: b.end, blocks: blocks[i : i+1], headOnly: true})
			continue
		}
		if len(secs) == 0 {
			secs = append(secs, section{start: b.start, blocks: blocks[i:i]})
		}
		s := &secs[len(secs)-1]
		s.blocks = s.blocks[:len(s.blocks)+1]
		s.end = b.end
		s.headOnly = false
	}
	return secs
}

// sectionCount is how many sections blocks make: one per heading, and
// one for text before the first.
func sectionCount(blocks []block) int {
	n := 0
	for i, b := range blocks {
		if b.kind == kindHeading || i == 0 {
			n++
		}
	}
	return n
}

// group merges tiny neighbouring sections that share a parent, so a
// heading with two lines under it does not become a passage of its own,
// and a heading with nothing under it always joins what follows. With
// all set, any neighbours that fit one passage merge (MaxPassages).
func (c *Chunker) group(secs []section, body []byte, all bool) []section {
	var out []section
	for i := range secs {
		if secs[i].offs == nil {
			// Kept in secs: a second grouping (all set) counts nothing again.
			secs[i].offs = c.offsets(string(body[secs[i].start:secs[i].end]))
		}
		s := secs[i]
		n := len(s.offs)
		s.tokens = n
		if len(out) > 0 {
			last := &out[len(out)-1]
			lt := last.tokens
			// A tiny section joins its neighbour; the preamble before the
			// first heading only takes what follows when it is tiny itself.
			lastTiny := lt < c.P.MinTokens && (len(last.path) == 0 || related(last.path, s.path))
			thisTiny := n < c.P.MinTokens && len(last.path) > 0 && related(last.path, s.path)
			// Headings alone join what follows whatever its size, but a run
			// of headings longer than a passage (100k headings) is cut.
			if last.headOnly && lt < c.P.MaxTokens || (all || lastTiny || thisTiny) && lt+n <= c.P.MaxTokens {
				last.headOnly = last.headOnly && s.headOnly
				last.path = commonPrefix(last.path, s.path)
				last.end = s.end
				// Neighbours: their blocks follow each other in one array.
				last.blocks = last.blocks[:len(last.blocks)+len(s.blocks)]
				last.tokens, last.offs = lt+n, nil
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// related reports whether b sits under a's parent: a sibling, a child, or
// a deeper descendant of a's parent.
func related(a, b []string) bool {
	if len(a) == 0 {
		return true // the preamble before the first heading
	}
	parent := a[:len(a)-1]
	return len(b) >= len(a) && equal(b[:len(parent)], parent) || len(b) > len(a) && equal(b[:len(a)], a)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func commonPrefix(a, b []string) []string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n:n]
}

// window emits a section as one chunk if it fits, else as token windows.
func (c *Chunker) window(body []byte, s section) []Chunk {
	start, end := trimSpace(body, s.start, s.end)
	if start >= end {
		return nil
	}
	text := string(body[start:end])
	var offs []int
	mk := func(a, b int) Chunk {
		a, b = trimSpace(body, a, b)
		ch := Chunk{Start: a, End: b, Headings: pathAt(body, s, a), Tokens: s.tokens}
		if offs != nil {
			ch.Tokens = tokensBetween(offs, a-start, b-start)
		}
		for i := firstBlockFrom(s.blocks, a); i < len(s.blocks) && s.blocks[i].start < b; i++ {
			if bl := s.blocks[i]; bl.kind == kindHeading && !hasPrefix(ch.Headings, bl.path) {
				ch.Contains = append(ch.Contains, bl.heading)
			}
		}
		return ch
	}
	// Merged groups that fit were counted section by section: no second
	// tokenisation.
	if s.tokens <= c.P.MaxTokens {
		return []Chunk{mk(start, end)}
	}
	offs = s.offs
	if offs == nil || s.start != start {
		offs = c.offsets(text) // merged, or leading space trimmed: offsets shift
	}
	keep := keptSpans(body, s.blocks, start)
	var out []Chunk
	pos := 0 // relative to start
	for pos < len(text) {
		ti := tokenIndex(offs, pos)
		if len(offs)-ti <= c.P.MaxTokens {
			out = append(out, mk(start+pos, end))
			break
		}
		cut := c.cut(text, offs, pos, ti, keep)
		out = append(out, mk(start+pos, start+cut))
		next := c.nextStart(text, offs, pos, cut)
		if sp, ok := spanAt(keep, next); ok {
			next = sp.b
			if sp.a > pos {
				next = sp.a
			}
		}
		if next <= pos {
			next = cut
		}
		for next < len(text) && isSpace(text[next]) {
			next++
		}
		pos = next
		if len(out) > MaxPassages {
			break
		}
	}
	return out
}

// span is a stretch of a section, relative to its start, that a window
// never cuts: an atomic block, or a run of headings (with the atomic block
// right under it), which never ends a window either.
type span struct {
	a, b    int
	heading bool
}

// keptSpans lists the section's spans in order.
func keptSpans(body []byte, bs []block, start int) []span {
	var keep []span
	for i := 0; i < len(bs); i++ {
		bl := bs[i]
		switch bl.kind {
		case kindAtomic:
			a, b := trimSpace(body, bl.start, bl.end)
			keep = append(keep, span{a: max(a-start, 0), b: b - start})
		case kindHeading:
			j := i
			for j+1 < len(bs) && bs[j+1].kind == kindHeading {
				j++
			}
			e := bs[j].end
			if j+1 < len(bs) && bs[j+1].kind == kindAtomic {
				j++
				e = bs[j].end
			}
			a, b := trimSpace(body, bl.start, e)
			keep = append(keep, span{a: max(a-start, 0), b: b - start, heading: true})
			i = j
		}
	}
	return keep
}

// spanAt returns the kept span that strictly contains pos, if any.
func spanAt(keep []span, pos int) (span, bool) {
	i := sort.Search(len(keep), func(i int) bool { return keep[i].b > pos })
	if i < len(keep) && keep[i].a < pos {
		return keep[i], true
	}
	return span{}, false
}

// headingBefore returns the start of a heading span that ends just
// before cut (nothing but space between), or -1.
func headingBefore(text string, keep []span, cut int) int {
	i := sort.Search(len(keep), func(i int) bool { return keep[i].b > cut }) - 1
	if i < 0 || !keep[i].heading || strings.TrimSpace(text[keep[i].b:cut]) != "" {
		return -1
	}
	return keep[i].a
}

// firstBlockFrom returns the index of the first block that ends after a.
func firstBlockFrom(bs []block, a int) int {
	return sort.Search(len(bs), func(i int) bool { return bs[i].end > a })
}

// pathAt is the heading path where a passage starting at a begins: the
// path of the headings it starts with, else of the last heading above it.
func pathAt(body []byte, s section, a int) []string {
	i := firstBlockFrom(s.blocks, a)
	if i < len(s.blocks) && s.blocks[i].kind == kindHeading {
		if st, _ := trimSpace(body, s.blocks[i].start, s.blocks[i].end); st >= a {
			for i+1 < len(s.blocks) && s.blocks[i+1].kind == kindHeading {
				i++
			}
			return s.blocks[i].path
		}
	}
	for j := min(i, len(s.blocks)-1); j >= 0; j-- {
		if s.blocks[j].kind == kindHeading && s.blocks[j].start < a {
			return s.blocks[j].path
		}
	}
	return s.path
}

func hasPrefix(path, sub []string) bool {
	return len(sub) <= len(path) && equal(path[:len(sub)], sub)
}

// cut picks where a window starting at pos (in token ti) ends: at a line
// end if one falls in the second half of the window, else at a sentence
// end, else at a space. A kept span is never cut: the window ends before
// it, or, when the window starts with it, takes it whole. The window is
// never empty: pos, not the start of its token, is where it begins (an
// indented code block starts inside the token of its indentation, and
// comparing with the token's start once ended every window there at pos).
func (c *Chunker) cut(text string, offs []int, pos, ti int, keep []span) int {
	from := pos
	limit := offs[ti+c.P.MaxTokens]
	half := offs[ti+c.P.MaxTokens/2]
	if sp, ok := spanAt(keep, limit); ok {
		if sp.a > from {
			return sp.a
		}
		return sp.b
	}
	cut := limit
	if i := strings.LastIndexByte(text[half:limit], '\n'); i >= 0 {
		cut = half + i + 1
	} else if i := lastSentenceEnd(text[half:limit]); i >= 0 {
		cut = half + i
	} else if i := strings.LastIndexAny(text[from:limit], " \t"); i > 0 {
		cut = from + i
	}
	if h := headingBefore(text, keep, cut); h > from {
		cut = h // the heading opens the next window
	}
	return cut
}

// nextStart places the next window. After a line end the next window starts
// fresh: a phrase never crosses a line. Inside a line the windows overlap
// by about OverlapTokens, starting at a sentence if one begins there.
func (c *Chunker) nextStart(text string, offs []int, pos, cut int) int {
	if cut >= len(text) || atLineStart(text, cut) {
		return cut
	}
	ct := tokenIndex(offs, cut)
	target := offs[max(ct-c.P.OverlapTokens, 0)]
	floor := offs[max(ct-2*c.P.OverlapTokens, 0)]
	if floor <= pos {
		floor = pos + 1
	}
	if floor < target {
		if i := lastSentenceEnd(text[floor:target]); i >= 0 {
			return floor + i
		}
	}
	if target > pos+1 {
		if i := strings.LastIndexAny(text[pos+1:target], " \t"); i >= 0 {
			return pos + 1 + i
		}
		return target
	}
	return cut // the overlap would not move forward
}

// atLineStart reports whether only indentation precedes cut on its line:
// a window that ends before an indented code block or a kept span ends
// at a line, and the next one starts there (overlapping back would cut
// windows that end at the same place again and again).
func atLineStart(text string, cut int) bool {
	i := cut
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i == 0 || text[i-1] == '\n'
}

// lastSentenceEnd returns the offset just past the last ". ", "? ", "! "
// (or the same before a newline) in s, or -1.
func lastSentenceEnd(s string) int {
	for i := len(s) - 2; i > 0; i-- {
		if (s[i] == '.' || s[i] == '?' || s[i] == '!') && (s[i+1] == ' ' || s[i+1] == '\n') {
			r, _ := utf8.DecodeLastRuneInString(s[:i])
			if r != '.' && !unicode.IsSpace(r) {
				return i + 1
			}
		}
	}
	return -1
}

// tokenIndex returns the index of the token that contains byte pos.
func tokenIndex(offs []int, pos int) int {
	lo, hi := 0, len(offs)
	for lo < hi {
		m := (lo + hi) / 2
		if offs[m] <= pos {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return max(lo-1, 0)
}

func tokensBetween(offs []int, a, b int) int {
	return max(tokenIndex(offs, max(b-1, a))-tokenIndex(offs, a)+1, 0)
}

func trimSpace(b []byte, start, end int) (int, int) {
	for start < end && isSpace(b[start]) {
		start++
	}
	for end > start && isSpace(b[end-1]) {
		end--
	}
	return start, end
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
