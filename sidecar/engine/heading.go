package engine

import (
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/vault"
)

// outlines keeps the headings of the notes nameByMatch read, by path and
// content, so that the keystrokes of one query parse each note once.
type outlines struct {
	mu sync.Mutex
	m  map[string]outline
}

type outline struct {
	sum   uint64
	title string
	heads []markdown.Heading
}

// maxOutlines bounds the notes whose headings are kept; past it the
// cache starts again.
const maxOutlines = 512

// get returns raw's title and headings, parsed once per content.
func (o *outlines) get(path string, raw []byte, params markdown.Params) (string, []markdown.Heading, bool) {
	h := fnv.New64a()
	h.Write(raw)
	sum := h.Sum64()
	o.mu.Lock()
	c, ok := o.m[path]
	o.mu.Unlock()
	if ok && c.sum == sum {
		return c.title, c.heads, true
	}
	note, err := vault.Parse(path, raw)
	if err != nil {
		return "", nil, false
	}
	c = outline{sum: sum, title: note.Title, heads: markdown.Outline(raw, note.BodyStart, params)}
	o.mu.Lock()
	if o.m == nil || len(o.m) >= maxOutlines {
		o.m = map[string]outline{}
	}
	o.m[path] = c
	o.mu.Unlock()
	return c.title, c.heads, true
}

// outlineMax is the largest note whose headings are read to name a
// passage by the section holding the match: a bigger one keeps the
// heading its passage starts under.
const outlineMax = 1 << 20

// nameByMatch gives each passage that merged several sections the heading
// path of the section holding most of the words the query matched, so
// that "embed a pdf" is shown under "Embed a PDF", not under the first of
// the small sections merged with it. A passage whose note changed since
// it was indexed, or that holds no inner heading, is left as it is. It
// changes no ranking: only the name shown.
func (e *Engine) nameByMatch(res *search.Result) {
	var m *search.Matcher
	params := markdown.Params(e.Config().Chunk)
	for i := range res.Passages {
		p := &res.Passages[i]
		if !strings.Contains(p.Text, "\n#") {
			continue
		}
		raw, err := vault.ReadFile(e.ix.Vault, p.Path, outlineMax)
		if err != nil || p.Start < 0 || p.End > len(raw) || p.Start > p.End || string(raw[p.Start:p.End]) != p.Text {
			continue
		}
		title, heads, ok := e.outlines.get(p.Path, raw, params)
		if !ok {
			continue
		}
		var inner []markdown.Heading
		for _, h := range heads {
			if h.Start > p.Start && h.Start < p.End {
				inner = append(inner, h)
			}
		}
		if len(inner) == 0 {
			continue
		}
		if m == nil {
			m = res.Terms.Matcher()
		}
		// The first section keeps the passage's own path; a later one
		// must hold more of the query's words to take its place.
		best, bestN := -1, len(m.Words(string(raw[p.Start:inner[0].Start])))
		for j, h := range inner {
			end := p.End
			if j+1 < len(inner) {
				end = inner[j+1].Start
			}
			if n := len(m.Words(string(raw[h.Start:end]))); n > bestN {
				best, bestN = j, n
			}
		}
		if best >= 0 {
			p.Headings = index.ShownHeadings(title, inner[best].Path)
		}
	}
}

// answersAfterSources moves each passage of a saved answer (Quire/Answers)
// below the last passage of the notes it cites, when one of them is in
// the result: an answer repeats its sources, and one Save as note used to
// take the first places of the question it answered and push the note it
// came from down. An answer whose sources are not in the result keeps
// its place. Its score is lowered to the passage it now follows.
func (e *Engine) answersAfterSources(res *search.Result) {
	folder := e.answersFolder() + "/"
	type moved struct {
		at    int // the passage it now follows
		score float64
	}
	after := map[int]moved{}
	for i, p := range res.Passages {
		if !strings.HasPrefix(p.Path, folder) {
			continue
		}
		raw, err := vault.ReadFile(e.ix.Vault, p.Path, outlineMax)
		if err != nil {
			continue
		}
		notes, ok := ask.CitedNotes(raw)
		if !ok {
			continue
		}
		last := -1
		for j := i + 1; j < len(res.Passages); j++ {
			if q := res.Passages[j].Path; !strings.HasPrefix(q, folder) && slices.Contains(notes, q) {
				last = j
			}
		}
		if last > i {
			after[i] = moved{at: last, score: res.Passages[last].Score}
		}
	}
	if len(after) == 0 {
		return
	}
	out := make([]search.Passage, 0, len(res.Passages))
	for i, p := range res.Passages {
		if _, ok := after[i]; ok {
			continue
		}
		out = append(out, p)
		for j := range res.Passages { // in rank order, after the source
			if m, ok := after[j]; ok && m.at == i {
				a := res.Passages[j]
				a.Score = min(a.Score, m.score)
				out = append(out, a)
			}
		}
	}
	res.Passages = out
}
