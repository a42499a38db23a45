package compile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/markdown"
)

// Reading: the source is cut into chunks that fit the model's context,
// each chunk read with one call returning notes, the notes merged in groups
// until they fit one prompt (map-reduce), and the note planned from them.

// DefaultContextTokens is the context window assumed when the model's
// configuration names none: small enough for the common local defaults.
const DefaultContextTokens = 8192

// DefaultMaxCalls caps calls per source when Options.MaxCalls is 0 (the
// configuration's default, ingest.max_calls).
const DefaultMaxCalls = 24

// The token budget of a call, beside the data it carries. The reply
// reserves shrink with a small window (a quarter of it at most).
const (
	readReply    = 1024 // reply tokens reserved for a chunk's notes
	planReply    = 2048 // reply tokens reserved for a merge or the plan
	promptTokens = 768  // system prompt and tags
	pageTokens   = 160  // one related page shown to the plan
	minChunk     = 200  // below this a chunk is mostly overhead
	// guessNotes is how many tokens a chunk's notes take before any has
	// been read; after that the running mean is used.
	guessNotes = 600
)

type term struct {
	Term       string `json:"term"`
	Definition string `json:"definition"`
}

type entity struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
}

type relation struct {
	From     string `json:"from"`
	Relation string `json:"relation"`
	To       string `json:"to"`
}

// notes is what the model wrote about a chunk, or about several after a
// merge.
type notes struct {
	Points    []string   `json:"points"`
	Terms     []term     `json:"terms"`
	Quotes    []string   `json:"quotes"`
	Entities  []entity   `json:"entities"`
	Relations []relation `json:"relations"`
}

// bound cuts every list to its limit; the model was told the limits but
// nothing makes it keep them.
func (n *notes) bound(points, terms, quotes, ents, rels int) {
	n.Points = n.Points[:min(len(n.Points), points)]
	n.Terms = n.Terms[:min(len(n.Terms), terms)]
	n.Quotes = n.Quotes[:min(len(n.Quotes), quotes)]
	n.Entities = n.Entities[:min(len(n.Entities), ents)]
	n.Relations = n.Relations[:min(len(n.Relations), rels)]
}

// render writes notes as the plain lists the merge and plan prompts show.
func (n notes) render() string {
	var b strings.Builder
	list := func(head string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString(head + ":\n")
		for _, it := range items {
			b.WriteString("- " + oneLine(it) + "\n")
		}
	}
	list("Points", n.Points)
	var ts, qs, es, rs []string
	for _, t := range n.Terms {
		ts = append(ts, t.Term+": "+t.Definition)
	}
	for _, q := range n.Quotes {
		qs = append(qs, `"`+q+`"`)
	}
	for _, e := range n.Entities {
		es = append(es, e.Name+" ("+e.Kind+"): "+e.Description)
	}
	for _, r := range n.Relations {
		rs = append(rs, r.From+" — "+r.Relation+" — "+r.To)
	}
	list("Terms", ts)
	list("Quotes", qs)
	list("Entities", es)
	list("Relations", rs)
	return b.String()
}

// join concatenates notes without a model: the fallback when the call cap
// leaves no calls to merge with, or a merge reply is unusable. Items are
// taken from each set in turn (every set's first point, then every set's
// second…) while they fit budget tokens.
func join(sets []notes, budget int) notes {
	var out notes
	used := 40 // the list headings
	fits := func(s string) bool {
		n := markdown.CountTokens("- " + s + "\n")
		if used+n > budget {
			return false
		}
		used += n
		return true
	}
	for r := 0; ; r++ {
		more := false
		for _, s := range sets {
			if r < len(s.Points) {
				more = true
				if fits(s.Points[r]) {
					out.Points = append(out.Points, s.Points[r])
				}
			}
			if r < len(s.Terms) {
				more = true
				if t := s.Terms[r]; fits(t.Term + ": " + t.Definition) {
					out.Terms = append(out.Terms, t)
				}
			}
			if r < len(s.Quotes) {
				more = true
				if fits(`"` + s.Quotes[r] + `"`) {
					out.Quotes = append(out.Quotes, s.Quotes[r])
				}
			}
			if r < len(s.Entities) {
				more = true
				if e := s.Entities[r]; fits(e.Name + " (" + e.Kind + "): " + e.Description) {
					out.Entities = append(out.Entities, e)
				}
			}
			if r < len(s.Relations) {
				more = true
				if x := s.Relations[r]; fits(x.From + " — " + x.Relation + " — " + x.To) {
					out.Relations = append(out.Relations, x)
				}
			}
		}
		if !more {
			return out
		}
	}
}

// chunk is a piece of the source's Markdown for one read call.
type chunk struct {
	text   string
	tokens int
	page   int // the PDF page it starts on, 0 for other sources
}

// split cuts md into chunks of at most max tokens at paragraph breaks
// (a paragraph longer than that at line, then word, breaks), keeping track
// of the PDF page each chunk starts on.
func split(md string, max int) []chunk {
	var out []chunk
	var cur strings.Builder
	curTok, curPage, page := 0, 0, 0
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, chunk{text: t, tokens: curTok, page: curPage})
		}
		cur.Reset()
		curTok = 0
	}
	add := func(p string, n int) {
		if curTok > 0 && curTok+n > max {
			flush()
		}
		if curTok == 0 {
			curPage = page
		}
		cur.WriteString(p)
		cur.WriteString("\n\n")
		curTok += n
	}
	for _, para := range strings.Split(md, "\n\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		if n, ok := extract.PageOf(strings.TrimSpace(para)); ok {
			page = n
			if curTok == 0 {
				curPage = n
			}
			continue
		}
		n := markdown.CountTokens(para)
		if n <= max {
			add(para, n)
			continue
		}
		for _, piece := range pieces(para, max) {
			add(piece, markdown.CountTokens(piece))
		}
	}
	flush()
	return out
}

// pieces cuts one long paragraph into parts of at most max tokens, at
// word breaks.
func pieces(para string, max int) []string {
	words := strings.Fields(para)
	var out []string
	var cur []string
	n := 0
	for _, w := range words {
		wn := markdown.CountTokens(" " + w)
		if n > 0 && n+wn > max {
			out = append(out, strings.Join(cur, " "))
			cur, n = nil, 0
		}
		cur = append(cur, w)
		n += wn
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, " "))
	}
	return out
}

// reader runs the model calls for one source within the call cap.
type reader struct {
	model    Model
	maxCalls int
	calls    int
	// in and out count the tokens of the calls made, as the server
	// counted them.
	in, out  int
	window   int // context tokens
	progress func(step ingest.Step, i, n int)
}

// budgetNotes is how many tokens of notes the plan prompt holds, beside
// the related pages.
func (r *reader) budgetNotes() int {
	return max(r.mergeBudget()-maxConnections*pageTokens, minChunk)
}

// mergeBudget is how many tokens of notes one merge prompt holds.
func (r *reader) mergeBudget() int {
	return max(r.window-r.planReply()-promptTokens, minChunk)
}

func (r *reader) readReply() int { return min(readReply, r.window/4) }
func (r *reader) planReply() int { return min(planReply, r.window/4) }

// chunkTokens is the size of a chunk of source text.
func (r *reader) chunkTokens() int { return max(r.window-r.readReply()-promptTokens, minChunk) }

// call asks for JSON matching schema and decodes it into v. A model that
// has Chat (as *llm.Client does) gets its one retry for a reply that is
// not JSON.
func (r *reader) call(ctx context.Context, system, user string, maxTokens int, schema any, v any) error {
	r.calls++
	msgs := []llm.Message{{Role: llm.System, Content: system}, {Role: llm.User, Content: user}}
	opts := llm.Options{JSONSchema: schema, MaxTokens: maxTokens}
	var rep llm.Reply
	var err error
	if c, ok := r.model.(interface {
		Chat(context.Context, []llm.Message, llm.Options) (llm.Reply, error)
	}); ok {
		rep, err = c.Chat(ctx, msgs, opts)
	} else {
		rep, err = r.model.Stream(ctx, msgs, opts, nil)
	}
	r.in += rep.InputTokens
	r.out += rep.OutputTokens
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(rep.Text), v); err != nil {
		return fmt.Errorf("%w: %v", errReply, err)
	}
	return nil
}

// errReply is a reply that was JSON but not the expected shape.
var errReply = errors.New("reply does not match the schema")

// usable reports whether a failed call should skip its part rather than
// stop the reading: the model answered, just not usefully.
func usable(err error) bool {
	return errors.Is(err, errReply) || errors.Is(err, llm.ErrBadJSON)
}

// readAll reads the chunks in order until the cap: it stops when reading
// one more chunk would leave too few calls for the merges its notes need
// and the plan. It returns each read chunk's notes (nil for a chunk whose
// reply was unusable) and how many chunks it read.
func (r *reader) readAll(ctx context.Context, title string, chunks []chunk) ([]notes, int, int, error) {
	var sets []notes
	var sizes []int
	bad := 0
	for i, c := range chunks {
		guess := guessNotes
		if len(sizes) > 0 {
			sum := 0
			for _, s := range sizes {
				sum += s
			}
			guess = sum / len(sizes)
		}
		need := 1 + merges(append(sizes, guess), r.budgetNotes(), r.mergeBudget()) + 1 // this read, merges, the plan
		if r.calls+need > r.maxCalls && i > 0 {
			return sets, i, bad, nil
		}
		if r.progress != nil {
			r.progress(ingest.StepReading, i+1, len(chunks))
		}
		var n notes
		err := r.call(ctx, readSystem(), readUser(title, i+1, len(chunks), c.text), r.readReply(), notesSchema, &n)
		if err != nil && !usable(err) {
			return nil, i, bad, err
		}
		if err != nil {
			bad++
		}
		n.bound(maxPoints, maxTerms, maxQuotes, maxEntities, maxRelations)
		sets = append(sets, n)
		sizes = append(sizes, markdown.CountTokens(n.render()))
	}
	return sets, len(chunks), bad, nil
}

// merges counts the merge calls that reduce notes of the given sizes to
// one plan prompt of budget tokens, in groups of at most group tokens, as
// reduce does.
func merges(sizes []int, budget, groupTokens int) int {
	total := 0
	for _, s := range sizes {
		total += s
	}
	if total <= budget || len(sizes) <= 1 {
		return 0
	}
	groups := group(sizes, groupTokens)
	if len(groups) >= len(sizes) {
		// Merging cannot shrink sets this large; reduce joins them.
		return 0
	}
	next := make([]int, len(groups))
	for i := range groups {
		next[i] = guessNotes
	}
	return len(groups) + merges(next, budget, groupTokens)
}

// group splits sizes into consecutive runs of at least two whose sum fits
// budget where possible; it returns the runs' end indices.
func group(sizes []int, budget int) [][2]int {
	var out [][2]int
	start, sum := 0, 0
	for i, s := range sizes {
		if i > start && sum+s > budget {
			out = append(out, [2]int{start, i})
			start, sum = i, 0
		}
		sum += s
	}
	return append(out, [2]int{start, len(sizes)})
}

// reduce merges the sets in groups with the model until they fit one
// prompt; when the cap leaves too few calls (one stays for the plan) or a
// merge reply is unusable, the rest is joined without the model.
func (r *reader) reduce(ctx context.Context, sets []notes) (notes, error) {
	budget := r.budgetNotes()
	for {
		sizes := make([]int, len(sets))
		total := 0
		for i, s := range sets {
			sizes[i] = markdown.CountTokens(s.render())
			total += sizes[i]
		}
		if total <= budget {
			if len(sets) == 1 {
				return sets[0], nil
			}
			return join(sets, budget), nil
		}
		groups := group(sizes, r.mergeBudget())
		if len(groups) >= len(sets) || r.calls+len(groups)+1 > r.maxCalls {
			return join(sets, budget), nil
		}
		next := make([]notes, 0, len(groups))
		for _, g := range groups {
			if g[1]-g[0] == 1 {
				next = append(next, sets[g[0]])
				continue
			}
			var m notes
			err := r.call(ctx, mergeSystem(), mergeUser(sets[g[0]:g[1]]), r.planReply(), notesSchema, &m)
			if err != nil && !usable(err) {
				return notes{}, err
			}
			if err != nil {
				m = join(sets[g[0]:g[1]], budget)
			}
			m.bound(maxMergedPoints, maxMergedTerms, maxMergedQuotes, maxMergedEnts, maxMergedRels)
			next = append(next, m)
		}
		sets = next
	}
}

// plan is the model's plan for the note, before the checks.
type plan struct {
	Title          string          `json:"title"`
	OneLiner       string          `json:"oneLiner"`
	Summary        string          `json:"summary"`
	KeyIdeas       []string        `json:"keyIdeas"`
	Tags           []string        `json:"tags"`
	Concepts       []concept       `json:"concepts"`
	Entities       []entity        `json:"entities"`
	Connections    []connection    `json:"connections"`
	Contradictions []contradiction `json:"contradictions"`
}

type concept struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type connection struct {
	Page   string `json:"page"`
	Reason string `json:"reason"`
}

type contradiction struct {
	Page        string `json:"page"`
	Claim       string `json:"claim"`
	Explanation string `json:"explanation"`
}

func (r *reader) plan(ctx context.Context, meta []string, n notes, pages []Page) (plan, error) {
	var p plan
	if err := r.call(ctx, planSystem(), planUser(meta, n, pages), r.planReply(), planSchema, &p); err != nil {
		return plan{}, err
	}
	p.KeyIdeas = p.KeyIdeas[:min(len(p.KeyIdeas), maxKeyIdeas)]
	p.Tags = p.Tags[:min(len(p.Tags), maxTags)]
	p.Concepts = p.Concepts[:min(len(p.Concepts), maxConcepts)]
	p.Entities = p.Entities[:min(len(p.Entities), maxPlanEnts)]
	p.Connections = p.Connections[:min(len(p.Connections), maxConnections)]
	p.Contradictions = p.Contradictions[:min(len(p.Contradictions), maxContradicts)]
	return p, nil
}
