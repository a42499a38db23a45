package markdown

import (
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
	// Headings is the heading path above the passage (H1, H2, ...),
	// without the note title, markup removed.
	Headings []string
	// Contains lists the headings that start inside the passage.
	Contains []string
	Tokens   int
}

// Chunker cuts notes into chunks.
type Chunker struct {
	P   Params
	Tok Tokenizer
}

// New returns a Chunker with the cl100k tokenizer.
func New(p Params) *Chunker { return &Chunker{P: p, Tok: CL100K()} }

// section is a heading and the blocks under it up to the next heading.
type section struct {
	path       []string
	start, end int
	blocks     []block
	tokens     int
	offs       []int // token offsets of body[start:end], for a section not merged
}

// Split cuts raw[bodyStart:] into chunks whose offsets index raw.
func (c *Chunker) Split(raw []byte, bodyStart int) []Chunk {
	body := raw[bodyStart:]
	var out []Chunk
	for _, g := range c.group(c.sections(body), body) {
		for _, ch := range c.window(body, g) {
			ch.Start += bodyStart
			ch.End += bodyStart
			out = append(out, ch)
		}
	}
	return out
}

func (c *Chunker) sections(body []byte) []section {
	var secs []section
	var path []string
	var levels []int
	for _, b := range parseBlocks(body) {
		if b.kind == kindHeading {
			for len(levels) > 0 && levels[len(levels)-1] >= b.level {
				levels, path = levels[:len(levels)-1], path[:len(path)-1]
			}
			levels, path = append(levels, b.level), append(path, b.heading)
			secs = append(secs, section{path: append([]string(nil), path...), start: b.start, end: b.end, blocks: []block{b}})
			continue
		}
		if len(secs) == 0 {
			secs = append(secs, section{start: b.start})
		}
		s := &secs[len(secs)-1]
		s.blocks = append(s.blocks, b)
		s.end = b.end
	}
	return secs
}

// group merges tiny neighbouring sections that share a parent, so a
// heading with two lines under it does not become a passage of its own.
func (c *Chunker) group(secs []section, body []byte) []section {
	var out []section
	for _, s := range secs {
		s.offs = c.Tok.Offsets(string(body[s.start:s.end]))
		n := len(s.offs)
		s.tokens = n
		if len(out) > 0 {
			last := &out[len(out)-1]
			lt := last.tokens
			// A tiny section joins its neighbour; the preamble before the
			// first heading only takes what follows when it is tiny itself.
			lastTiny := lt < c.P.MinTokens && (len(last.path) == 0 || related(last.path, s.path))
			thisTiny := n < c.P.MinTokens && len(last.path) > 0 && related(last.path, s.path)
			if (lastTiny || thisTiny) && lt+n <= c.P.MaxTokens {
				last.path = commonPrefix(last.path, s.path)
				last.end = s.end
				last.blocks = append(last.blocks, s.blocks...)
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
		ch := Chunk{Start: a, End: b, Headings: s.path, Tokens: s.tokens}
		if offs != nil {
			ch.Tokens = tokensBetween(offs, a-start, b-start)
		}
		for _, bl := range s.blocks {
			if bl.kind == kindHeading && bl.start >= a && bl.start < b {
				ch.Contains = append(ch.Contains, bl.heading)
			}
		}
		return ch
	}
	// Merged groups always fit (merging stops at MaxTokens), and their
	// count was taken section by section: no second tokenisation.
	if s.tokens <= c.P.MaxTokens {
		return []Chunk{mk(start, end)}
	}
	offs = s.offs
	if s.start != start {
		offs = c.Tok.Offsets(text) // leading space trimmed: offsets shift
	}
	var atomics [][2]int
	for _, bl := range s.blocks {
		if bl.kind == kindAtomic {
			a, b := trimSpace(body, bl.start, bl.end)
			atomics = append(atomics, [2]int{a - start, b - start})
		}
	}
	var out []Chunk
	pos := 0 // relative to start
	for pos < len(text) {
		ti := tokenIndex(offs, pos)
		if len(offs)-ti <= c.P.MaxTokens {
			out = append(out, mk(start+pos, end))
			break
		}
		cut := c.cut(text, offs, ti, atomics)
		out = append(out, mk(start+pos, start+cut))
		next := c.nextStart(text, offs, pos, cut)
		for _, a := range atomics {
			if next > a[0] && next < a[1] {
				next = a[1]
				if a[0] > pos {
					next = a[0]
				}
			}
		}
		if next <= pos {
			next = cut
		}
		for next < len(text) && isSpace(text[next]) {
			next++
		}
		pos = next
	}
	return out
}

// cut picks where a window starting at token ti ends: at a line end if one
// falls in the second half of the window, else at a sentence end, else at a
// space. An atomic block is never cut: the window ends before it, or, when
// the window starts with it, takes it whole.
func (c *Chunker) cut(text string, offs []int, ti int, atomics [][2]int) int {
	from := offs[ti]
	limit := offs[ti+c.P.MaxTokens]
	half := offs[ti+c.P.MaxTokens/2]
	for _, a := range atomics {
		if a[0] < limit && a[1] > limit {
			if a[0] > from {
				return a[0]
			}
			return a[1]
		}
	}
	if i := strings.LastIndexByte(text[half:limit], '\n'); i >= 0 {
		return half + i + 1
	}
	if i := lastSentenceEnd(text[half:limit]); i >= 0 {
		return half + i
	}
	if i := strings.LastIndexAny(text[from:limit], " \t"); i > 0 {
		return from + i
	}
	return limit
}

// nextStart places the next window. After a line end the next window starts
// fresh: a phrase never crosses a line. Inside a line the windows overlap
// by about OverlapTokens, starting at a sentence if one begins there.
func (c *Chunker) nextStart(text string, offs []int, pos, cut int) int {
	if cut > 0 && text[cut-1] == '\n' || cut >= len(text) {
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
